package state

import (
	"encoding/binary"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func benchState(b *testing.B, accounts, slots int) (*StateDB, types.Hash) {
	b.Helper()
	s, db := newEmpty(b)
	for i := 0; i < accounts; i++ {
		a := types.Address{}
		binary.BigEndian.PutUint32(a[:], uint32(i+1))
		s.SetBalance(a, uint256.NewInt(uint64(i)+1))
		for j := 0; j < slots; j++ {
			s.SetState(a, types.Hash{31: byte(j), 30: byte(j >> 8)}, types.Hash{0: 1, 31: byte(j)})
		}
	}
	root, err := s.Commit(true)
	if err != nil {
		b.Fatal(err)
	}
	s, err = New(root, db)
	if err != nil {
		b.Fatal(err)
	}
	return s, root
}

// BenchmarkGetStateCached is SLOAD of a slot the block already read.
func BenchmarkGetStateCached(b *testing.B) {
	s, _ := benchState(b, 1, 16)
	a := types.Address{3: 1}
	k := types.Hash{31: 5}
	s.GetState(a, k)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.GetState(a, k)
	}
}

// BenchmarkGetStateCold is SLOAD that has to read the storage trie.
func BenchmarkGetStateCold(b *testing.B) {
	s, root := benchState(b, 1, 1024)
	a := types.Address{3: 1}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 {
			b.StopTimer()
			s, _ = New(root, s.db)
			b.StartTimer()
		}
		s.GetState(a, types.Hash{31: byte(i), 30: byte(i >> 8 & 3)})
	}
}

// BenchmarkSetState is SSTORE in a transaction: journaled, revertible.
func BenchmarkSetState(b *testing.B) {
	s, _ := benchState(b, 1, 16)
	a := types.Address{3: 1}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			s.Finalise(true)
		}
		s.SetState(a, types.Hash{31: byte(i & 15)}, types.Hash{31: byte(i), 30: 1})
	}
}

// BenchmarkIntermediateRoot hashes a block that changed 100 accounts with
// 10 slots each over a state of 1000 accounts.
func BenchmarkIntermediateRoot(b *testing.B) {
	s, _ := benchState(b, 1000, 4)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < 100; j++ {
			a := types.Address{}
			binary.BigEndian.PutUint32(a[:], uint32(j*7+1))
			s.AddBalance(a, uint256.NewInt(1))
			for k := 0; k < 10; k++ {
				s.SetState(a, types.Hash{31: byte(k), 29: 1}, types.Hash{31: byte(i + 1), 0: byte(k)})
			}
		}
		s.IntermediateRoot(true)
	}
}

// BenchmarkGetStateInDirtyTx is SLOAD of clean slots while the transaction
// has written many others: the lookup must not get slower with them.
func BenchmarkGetStateInDirtyTx(b *testing.B) {
	s, _ := benchState(b, 1, 64)
	a := types.Address{3: 1}
	for j := 0; j < 32; j++ {
		s.SetState(a, types.Hash{31: byte(j)}, types.Hash{31: 0xff})
	}
	k := types.Hash{31: 40}
	s.GetState(a, k)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.GetState(a, k)
	}
}
