package types

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/rlp"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

func testKey(t testing.TB, seed byte) *secp256k1.PrivateKey {
	t.Helper()
	k := crypto.Keccak256([]byte{seed})
	key, err := crypto.ToPrivateKey(k[:])
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func TestAddressChecksum(t *testing.T) {
	// Examples from EIP-55.
	for _, s := range []string{
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	} {
		a, err := ParseAddress(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if a.Hex() != s || a.String() != s {
			t.Errorf("Hex() = %s, want %s", a.Hex(), s)
		}
		lower := "0x" + string(bytes.ToLower([]byte(s[2:])))
		if b, err := ParseAddress(lower); err != nil || b != a {
			t.Errorf("lower case %s: %v", lower, err)
		}
		upper := "0x" + string(bytes.ToUpper([]byte(s[2:])))
		if b, err := ParseAddress(upper); err != nil || b != a {
			t.Errorf("upper case %s: %v", upper, err)
		}
		// Flip the case of one letter: the checksum must catch it.
		bad := []byte(s)
		for i := 2; i < len(bad); i++ {
			if bad[i] >= 'a' && bad[i] <= 'f' {
				bad[i] -= 32
				break
			}
		}
		if _, err := ParseAddress(string(bad)); !errors.Is(err, ErrBadChecksum) {
			t.Errorf("bad checksum %s: %v", bad, err)
		}
	}
	for _, s := range []string{"", "0x", "0x1234", "0xZZaeb6053F3E94C9b9A09f33669435E7Ef1BeAed"} {
		if _, err := ParseAddress(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestHashAddressJSON(t *testing.T) {
	a := MustAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
	h := MustHash("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347")
	enc, err := json.Marshal(struct {
		A Address
		H Hash
	}{a, h})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"A":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed","H":"0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"}`
	if string(enc) != want {
		t.Fatalf("got %s", enc)
	}
	var back struct {
		A Address
		H Hash
	}
	if err := json.Unmarshal(enc, &back); err != nil || back.A != a || back.H != h {
		t.Fatalf("round trip: %v", err)
	}
	if err := json.Unmarshal([]byte(`"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"`), &back.A); !errors.Is(err, ErrBadChecksum) {
		t.Errorf("bad checksum accepted: %v", err)
	}
	if err := json.Unmarshal([]byte(`"0x1dcc"`), &back.H); err == nil {
		t.Error("short hash accepted")
	}
}

func TestQuantities(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{`"0x0"`, 0, true}, {`"0x00"`, 0, true}, {`"0x0a"`, 10, true}, {`"0XFF"`, 255, true},
		{`"0xffffffffffffffff"`, ^uint64(0), true}, {`"0x10000000000000000"`, 0, false},
		{`"0x"`, 0, false}, {`"12"`, 0, false}, {`12`, 12, true}, {`"0xg"`, 0, false}, {`null`, 0, false},
	} {
		var x HexUint64
		err := json.Unmarshal([]byte(tc.in), &x)
		if (err == nil) != tc.ok || (tc.ok && uint64(x) != tc.want) {
			t.Errorf("HexUint64 %s = %d, %v", tc.in, x, err)
		}
	}
	for _, tc := range []struct {
		x    uint64
		want string
	}{{0, "0x0"}, {1, "0x1"}, {0x10, "0x10"}, {0x2dbf1f9a, "0x2dbf1f9a"}} {
		if got := EncodeUint64(tc.x); got != tc.want {
			t.Errorf("EncodeUint64(%d) = %s", tc.x, got)
		}
		if got := EncodeU256(uint256.NewInt(tc.x)); got != tc.want {
			t.Errorf("EncodeU256(%d) = %s", tc.x, got)
		}
	}
	big := uint256.MustFromHex("0x18e5bb3abd10a0")
	big.Lsh(big, 100)
	s := EncodeU256(big)
	back, err := ParseU256(s)
	if err != nil || !back.Eq(big) || s != big.Hex() {
		t.Errorf("u256 %s vs %s: %v", s, big.Hex(), err)
	}
	if _, err := ParseU256("0x" + string(bytes.Repeat([]byte{'f'}, 65))); !errors.Is(err, ErrHexOverflow) {
		t.Errorf("257-bit quantity: %v", err)
	}
	if v, err := ParseU256("0x000000000000000000000000000000000000000000000000000000000000000000001"); err != nil || v.Uint64() != 1 {
		t.Errorf("leading zeros beyond 64 digits: %v", err)
	}
	var u HexU256
	if err := json.Unmarshal([]byte(`"0x0001"`), &u); err != nil || u.Int().Uint64() != 1 {
		t.Errorf("HexU256 leading zeros: %v", err)
	}
	var b HexBytes
	if err := json.Unmarshal([]byte(`"0x"`), &b); err != nil || len(b) != 0 {
		t.Errorf("empty data: %v", err)
	}
	if err := json.Unmarshal([]byte(`"0x123"`), &b); !errors.Is(err, ErrHexOdd) {
		t.Errorf("odd data: %v", err)
	}
}

func TestBloom(t *testing.T) {
	var b Bloom
	l := &Log{Address: MustAddress("0x7dcd17433742f4c0ca53122ab541d0ba67fc27df"), Topics: []Hash{{1}, {2}}}
	b.AddLog(l)
	if !b.Test(l.Address[:]) || !b.Test(l.Topics[0][:]) || !b.Test(l.Topics[1][:]) {
		t.Fatal("added element not found")
	}
	set := 0
	for _, c := range b {
		for ; c != 0; c &= c - 1 {
			set++
		}
	}
	if set == 0 || set > 9 {
		t.Fatalf("%d bits set for 3 elements", set)
	}
	if b.Test([]byte("absent")) && b.Test([]byte("also absent")) && b.Test([]byte("third")) {
		t.Fatal("bloom claims everything")
	}
	r := &Receipt{Logs: []*Log{l}}
	r.Bloom = LogsBloom(r.Logs)
	if CreateBloom([]*Receipt{r, {}}) != b {
		t.Fatal("CreateBloom differs")
	}
}

func u64p(x uint64) *uint64 { return &x }
func hashp(h Hash) *Hash    { return &h }

func TestHeaderOptionalFields(t *testing.T) {
	base := Header{
		ParentHash: Hash{1}, UncleHash: EmptyUncleHash, Coinbase: Address{2}, Root: Hash{3},
		TxHash: EmptyRootHash, ReceiptHash: EmptyRootHash, Number: 7, GasLimit: 30_000_000,
		GasUsed: 21000, Time: 1700000000, Extra: []byte("chaind"), Nonce: EncodeNonce(0),
	}
	base.Difficulty.SetUint64(0)
	steps := []func(h *Header){
		func(h *Header) {},
		func(h *Header) { h.BaseFee = uint256.NewInt(7) },
		func(h *Header) { h.WithdrawalsHash = hashp(EmptyRootHash) },
		func(h *Header) { h.BlobGasUsed = u64p(0); h.ExcessBlobGas = u64p(0) },
		func(h *Header) { h.ParentBeaconRoot = hashp(Hash{9}) },
		func(h *Header) { h.RequestsHash = hashp(EmptyRequestsHash) },
	}
	h := base
	wantFields := []int{15, 16, 17, 19, 20, 21}
	for i, step := range steps {
		step(&h)
		enc := h.EncodeRLP()
		if len(enc) != h.EncodedSize() {
			t.Fatalf("step %d: size %d, encoded %d", i, h.EncodedSize(), len(enc))
		}
		content, _, _ := rlp.SplitList(enc)
		if n, _ := rlp.CountValues(content); n != wantFields[i] {
			t.Fatalf("step %d: %d fields, want %d", i, n, wantFields[i])
		}
		back, err := DecodeHeader(enc)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !bytes.Equal(back.EncodeRLP(), enc) || back.Hash() != h.Hash() {
			t.Fatalf("step %d: round trip differs", i)
		}
		if (back.RequestsHash != nil) != (h.RequestsHash != nil) || (back.BaseFee != nil) != (h.BaseFee != nil) {
			t.Fatalf("step %d: presence differs", i)
		}
	}
	// Trailing garbage field and bad lengths are rejected.
	enc := h.EncodeRLP()
	content, _, _ := rlp.SplitList(enc)
	withExtra := rlp.AppendListHeader(nil, len(content)+1)
	withExtra = append(append(withExtra, content...), 0x01)
	if _, err := DecodeHeader(withExtra); !errors.Is(err, ErrTooManyFields) {
		t.Errorf("extra field: %v", err)
	}
	short := base
	enc = short.EncodeRLP()
	content, _, _ = rlp.SplitList(enc)
	cut := rlp.AppendListHeader(nil, len(content)-9)
	cut = append(cut, content[:len(content)-9]...) // drop the nonce
	if _, err := DecodeHeader(cut); !errors.Is(err, ErrTooFewFields) {
		t.Errorf("missing nonce: %v", err)
	}
}

func sampleTxs(t testing.TB, chainID uint64) []*Transaction {
	key := testKey(t, 1)
	s := LatestSigner(chainID)
	to := Address{0xaa}
	al := AccessList{{Address: Address{0xbb}, StorageKeys: []Hash{{1}, {2}}}, {Address: Address{0xcc}, StorageKeys: []Hash{}}}
	auth := SignSetCode(testKey(t, 2), SetCodeAuthorization{Address: Address{0xdd}, Nonce: 3})
	auth.ChainID.SetUint64(chainID)
	auth = SignSetCode(testKey(t, 2), auth)
	var txs []*Transaction
	mk := func(inner TxData) {
		tx, err := SignTx(NewTx(inner), s, key)
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	mk(&LegacyTx{Nonce: 1, GasPrice: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
	mk(&LegacyTx{Nonce: 2, GasPrice: *uint256.NewInt(2e9), Gas: 100000, Data: []byte{0x60, 0x00}})
	mk(&AccessListTx{ChainID: *uint256.NewInt(chainID), Nonce: 3, GasPrice: *uint256.NewInt(1), Gas: 50000, To: &to, AccessList: al, Data: []byte("hi")})
	mk(&DynamicFeeTx{ChainID: *uint256.NewInt(chainID), Nonce: 4, GasTipCap: *uint256.NewInt(2), GasFeeCap: *uint256.NewInt(100), Gas: 50000, To: &to, AccessList: al})
	mk(&BlobTx{ChainID: *uint256.NewInt(chainID), Nonce: 5, GasTipCap: *uint256.NewInt(2), GasFeeCap: *uint256.NewInt(100), Gas: 50000, To: to, BlobFeeCap: *uint256.NewInt(7), BlobHashes: []Hash{{1, 2}}})
	mk(&SetCodeTx{ChainID: *uint256.NewInt(chainID), Nonce: 6, GasTipCap: *uint256.NewInt(2), GasFeeCap: *uint256.NewInt(100), Gas: 80000, To: to, AuthList: []SetCodeAuthorization{auth}})
	return txs
}

func TestTransactionRoundTrip(t *testing.T) {
	const chainID = 8118
	key := testKey(t, 1)
	want := Address(crypto.PubkeyToAddress(key.PubKey()))
	for _, tx := range sampleTxs(t, chainID) {
		bin, _ := tx.MarshalBinary()
		if len(bin) != int(tx.Size()) {
			t.Errorf("type %d: Size %d, encoding %d", tx.Type(), tx.Size(), len(bin))
		}
		back, err := DecodeTx(bin)
		if err != nil {
			t.Fatalf("type %d: %v", tx.Type(), err)
		}
		if again, _ := NewTx(back.Inner()).MarshalBinary(); !bytes.Equal(again, bin) {
			t.Fatalf("type %d: re-encoding from fields differs", tx.Type())
		}
		if back.Hash() != tx.Hash() || Hash(crypto.Keccak256(bin)) != tx.Hash() || NewTx(back.Inner()).Hash() != tx.Hash() {
			t.Fatalf("type %d: hash differs", tx.Type())
		}
		for _, s := range []Signer{LatestSigner(chainID), NewSigner(chainID, forks.Prague)} {
			from, err := s.Sender(back)
			if err != nil || from != want {
				t.Fatalf("type %d: sender %s, %v", tx.Type(), from, err)
			}
		}
		if _, err := LatestSigner(chainID + 1).Sender(DecodeMust(t, bin)); !errors.Is(err, ErrInvalidChainID) {
			t.Errorf("type %d: wrong chain accepted: %v", tx.Type(), err)
		}
		if tx.Type() >= BlobTxType {
			if _, err := NewSigner(chainID, forks.London).Sender(DecodeMust(t, bin)); !errors.Is(err, ErrTxTypeNotSupported) {
				t.Errorf("type %d accepted under London: %v", tx.Type(), err)
			}
		}
		// As an item of a block's list.
		item := tx.AppendRLP(nil)
		if len(item) != tx.RLPSize() {
			t.Errorf("type %d: RLPSize", tx.Type())
		}
		var fromItem Transaction
		if rest, err := fromItem.decodeRLPItem(item, nil); err != nil || len(rest) != 0 || fromItem.Hash() != tx.Hash() {
			t.Errorf("type %d: list item round trip: %v", tx.Type(), err)
		}
	}
}

func DecodeMust(t *testing.T, b []byte) *Transaction {
	t.Helper()
	tx, err := DecodeTx(b)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestSetCodeAuthority(t *testing.T) {
	key := testKey(t, 2)
	auth := SignSetCode(key, SetCodeAuthorization{Address: Address{0xdd}, Nonce: 3})
	got, err := auth.Authority()
	if err != nil || got != Address(crypto.PubkeyToAddress(key.PubKey())) {
		t.Fatalf("authority %s, %v", got, err)
	}
	// The signing hash commits to 0x05 || rlp([chain_id, address, nonce]).
	payload := append([]byte{0x05}, rlp.EncodeList(rlp.EncodeUint64(0), rlp.EncodeString(auth.Address[:]), rlp.EncodeUint64(3))...)
	if auth.SigningHash() != Hash(crypto.Keccak256(payload)) {
		t.Fatal("signing hash")
	}
	high := auth
	high.S.Sub(secp256k1N, &auth.S)
	high.V ^= 1
	if _, err := high.Authority(); !errors.Is(err, ErrInvalidSig) {
		t.Errorf("high s accepted: %v", err)
	}
	bad := auth
	bad.V = 2
	if _, err := bad.Authority(); !errors.Is(err, ErrInvalidSig) {
		t.Errorf("v=2 accepted: %v", err)
	}
}

func TestDecodeTxErrors(t *testing.T) {
	txs := sampleTxs(t, 1)
	legacy, _ := txs[0].MarshalBinary()
	typed, _ := txs[3].MarshalBinary()
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
	}{
		{"empty", nil, rlp.ErrEmptyInput},
		{"unknown type", append([]byte{0x05}, typed[1:]...), ErrTxTypeNotSupported},
		{"type only", []byte{0x02}, ErrTxTooShort},
		{"string", []byte{0x83, 1, 2, 3}, ErrLegacyTyped},
		{"trailing bytes", append(append([]byte{}, legacy...), 0x00), rlp.ErrTrailingBytes},
		{"too few fields", rlp.EncodeList(rlp.EncodeUint64(1)), ErrTooFewFields},
		{"too many fields", appendField(legacy, 0x01), ErrTooManyFields},
		{"typed too many fields", append([]byte{0x02}, appendField(typed[1:], 0x01)...), ErrTooManyFields},
	} {
		if _, err := DecodeTx(tc.in); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
}

// appendField adds one byte item to the end of the list enc.
func appendField(enc []byte, item byte) []byte {
	content, _, _ := rlp.SplitList(enc)
	out := rlp.AppendListHeader(nil, len(content)+1)
	out = append(out, content...)
	return append(out, item)
}

func TestEffectiveGasTip(t *testing.T) {
	tx := NewTx(&DynamicFeeTx{GasTipCap: *uint256.NewInt(5), GasFeeCap: *uint256.NewInt(100)})
	for _, tc := range []struct {
		base, want uint64
		err        error
	}{{10, 5, nil}, {97, 3, nil}, {100, 0, nil}, {101, 0, ErrGasFeeCapTooLow}} {
		tip, err := tx.EffectiveGasTip(uint256.NewInt(tc.base))
		if !errors.Is(err, tc.err) || (err == nil && tip.Uint64() != tc.want) {
			t.Errorf("base %d: tip %v, %v", tc.base, tip, err)
		}
	}
	if p := tx.EffectiveGasPrice(uint256.NewInt(10)); p.Uint64() != 15 {
		t.Errorf("effective price %d", p.Uint64())
	}
	legacy := NewTx(&LegacyTx{GasPrice: *uint256.NewInt(30)})
	if tip, _ := legacy.EffectiveGasTip(uint256.NewInt(10)); tip.Uint64() != 20 {
		t.Errorf("legacy tip %d", tip.Uint64())
	}
}

type recordingHasher struct{ keys, vals [][]byte }

func (h *recordingHasher) Reset() { h.keys, h.vals = nil, nil }
func (h *recordingHasher) Update(k, v []byte) error {
	h.keys = append(h.keys, k)
	h.vals = append(h.vals, v)
	return nil
}
func (h *recordingHasher) Hash() [32]byte {
	var all []byte
	for i := range h.keys {
		all = append(append(all, h.keys[i]...), h.vals[i]...)
	}
	return crypto.Keccak256(all)
}

func TestDeriveRootOrder(t *testing.T) {
	var h recordingHasher
	DeriveRoot(300, func(i int, buf []byte) []byte { return rlp.AppendUint64(buf, uint64(i)) }, &h)
	if len(h.keys) != 300 {
		t.Fatalf("%d keys", len(h.keys))
	}
	for i := 1; i < len(h.keys); i++ {
		if bytes.Compare(h.keys[i-1], h.keys[i]) >= 0 {
			t.Fatalf("keys not ascending at %d: %x then %x", i, h.keys[i-1], h.keys[i])
		}
	}
	for i := range h.keys {
		if !bytes.Equal(h.keys[i], h.vals[i]) {
			t.Fatalf("item %d paired with the wrong key", i)
		}
	}
}

func TestReceiptEncodings(t *testing.T) {
	logs := []*Log{{Address: Address{1}, Topics: []Hash{{2}}, Data: []byte{3}}}
	for _, r := range []*Receipt{
		{Type: LegacyTxType, Status: 1, CumulativeGasUsed: 21000, Logs: logs},
		{Type: DynamicFeeTxType, Status: 0, CumulativeGasUsed: 50000, Logs: []*Log{}},
		{Type: LegacyTxType, PostState: bytes.Repeat([]byte{7}, 32), CumulativeGasUsed: 1, Logs: []*Log{}},
		{Type: SetCodeTxType, Status: 1, CumulativeGasUsed: 9, Logs: logs},
	} {
		r.Bloom = LogsBloom(r.Logs)
		enc, _ := r.MarshalBinary()
		var back Receipt
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if again, _ := back.MarshalBinary(); !bytes.Equal(again, enc) {
			t.Fatalf("type %d: consensus round trip", r.Type)
		}
		if (r.Type != LegacyTxType) != (enc[0] == r.Type) {
			t.Fatalf("type byte")
		}
		st, err := DecodeReceiptFromStorage(r.EncodeForStorage())
		if err != nil || st.Type != r.Type || (len(r.PostState) == 0 && st.Status != r.Status) || st.Bloom != r.Bloom || st.CumulativeGasUsed != r.CumulativeGasUsed || !bytes.Equal(st.PostState, r.PostState) {
			t.Fatalf("type %d: storage round trip: %v", r.Type, err)
		}
	}
	var r Receipt
	if err := r.UnmarshalBinary(rlp.EncodeList(rlp.EncodeUint64(2), rlp.EncodeUint64(0), rlp.EncodeString(make([]byte, 256)), rlp.EncodeList())); !errors.Is(err, ErrReceiptStatus) {
		t.Errorf("status 2: %v", err)
	}
}

func TestCreateAddress(t *testing.T) {
	// From the execution-apis chain: sender 0x7435…865f with nonce 0 created
	// 0x9344b071…032d (eth_getTransactionReceipt/get-legacy-input).
	from := MustAddress("0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f")
	if got := CreateAddress(from, 0); got != MustAddress("0x9344b07175800259691961298ca11c824e65032d") {
		t.Fatalf("got %s", got)
	}
	// EIP-1014 example 0.
	if got := CreateAddress2(Address{}, Hash{}, Hash(crypto.Keccak256([]byte{0}))); got != MustAddress("0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38") {
		t.Fatalf("create2 got %s", got)
	}
}

func TestBlockEncoding(t *testing.T) {
	txs := sampleTxs(t, 1)
	h := &Header{Number: 5, BaseFee: uint256.NewInt(7), WithdrawalsHash: hashp(EmptyRootHash)}
	b := NewBlock(h, &Body{Transactions: txs, Withdrawals: []*Withdrawal{{Index: 1, Validator: 2, Address: Address{3}, Amount: 4}}})
	enc := b.EncodeRLP()
	if len(enc) != int(b.Size()) {
		t.Fatal("size")
	}
	back, err := DecodeBlock(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rebuilt(back).EncodeRLP(), enc) || back.Hash() != b.Hash() || len(back.Withdrawals()) != 1 || len(back.Transactions()) != len(txs) {
		t.Fatal("round trip")
	}
	// Without withdrawals the fourth element is absent.
	nb := NewBlock(&Header{Number: 1}, &Body{})
	content, _, _ := rlp.SplitList(nb.EncodeRLP())
	if n, _ := rlp.CountValues(content); n != 3 {
		t.Fatalf("pre-Shanghai block has %d elements", n)
	}
}

func TestBodyAndReceiptLists(t *testing.T) {
	body := &Body{Transactions: sampleTxs(t, 1), Uncles: []*Header{{Number: 3}}, Withdrawals: []*Withdrawal{{Index: 9, Amount: 1}}}
	enc := body.EncodeRLP()
	back, err := DecodeBody(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.EncodeRLP(), enc) || len(back.Transactions) != len(body.Transactions) || back.Uncles[0].Number != 3 || back.Withdrawals[0].Index != 9 {
		t.Fatal("body round trip")
	}
	if _, err := DecodeBody(append(enc, 0)); !errors.Is(err, rlp.ErrTrailingBytes) {
		t.Errorf("trailing: %v", err)
	}
	rs := []*Receipt{
		{Type: LegacyTxType, Status: 1, CumulativeGasUsed: 1, Logs: []*Log{}},
		{Type: DynamicFeeTxType, Status: 1, CumulativeGasUsed: 2, Logs: []*Log{{Data: []byte{1}}}},
	}
	renc := AppendReceiptsRLP(nil, rs)
	rback, err := DecodeReceiptsRLP(renc)
	if err != nil || len(rback) != 2 || rback[1].Type != DynamicFeeTxType {
		t.Fatalf("receipts list: %v", err)
	}
	if !bytes.Equal(AppendReceiptsRLP(nil, rback), renc) {
		t.Fatal("receipts list round trip")
	}
}

func TestMarshalJSONMethods(t *testing.T) {
	txs := sampleTxs(t, 1)
	b := NewBlock(&Header{Number: 2}, &Body{Transactions: txs})
	out, err := json.Marshal(struct {
		B *Block
		T []*Transaction
		L *Log
	}{b, txs, &Log{Topics: []Hash{}}})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		B map[string]any
		T []map[string]any
		L map[string]any
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.B["number"] != "0x2" || len(v.B["transactions"].([]any)) != len(txs) {
		t.Errorf("block: %v", v.B)
	}
	from := Address(crypto.PubkeyToAddress(testKey(t, 1).PubKey()))
	for i, tx := range v.T {
		if tx["blockHash"] != nil || tx["from"] != "0x"+hexLower(from[:]) || tx["hash"] != txs[i].Hash().Hex() {
			t.Errorf("tx %d: %v", i, tx)
		}
	}
	if v.T[4]["maxFeePerBlobGas"] != "0x7" || v.T[5]["authorizationList"] == nil || v.T[0]["chainId"] != "0x1" || v.T[2]["yParity"] == nil {
		t.Errorf("type-specific fields missing: %v", v.T)
	}
	if v.L["removed"] != false {
		t.Errorf("log: %v", v.L)
	}
}

func hexLower(b []byte) string { return EncodeBytes(b)[2:] }

func TestSignFillsChainID(t *testing.T) {
	key := testKey(t, 1)
	s := LatestSigner(8118)
	tx, err := SignTx(NewTx(&DynamicFeeTx{GasFeeCap: *uint256.NewInt(1), Gas: 21000}), s, key)
	if err != nil {
		t.Fatal(err)
	}
	if tx.ChainID().Uint64() != 8118 {
		t.Fatalf("chain id %d", tx.ChainID().Uint64())
	}
	from, err := s.Sender(DecodeMust(t, mustBinary(tx)))
	if err != nil || from != Address(crypto.PubkeyToAddress(key.PubKey())) {
		t.Fatalf("sender %s, %v", from, err)
	}
	// A legacy transaction signed by an EIP-155 signer is replay-protected.
	ltx, _ := SignTx(NewTx(&LegacyTx{Gas: 21000}), s, key)
	if !ltx.Protected() || ltx.ChainID().Uint64() != 8118 {
		t.Fatalf("legacy: protected %v chain %d", ltx.Protected(), ltx.ChainID().Uint64())
	}
	if _, err := SignTx(NewTx(&DynamicFeeTx{ChainID: *uint256.NewInt(1)}), s, key); !errors.Is(err, ErrInvalidChainID) {
		t.Fatalf("foreign chain id: %v", err)
	}
}

func mustBinary(tx *Transaction) []byte {
	b, _ := tx.MarshalBinary()
	return b
}

func TestTransactionJSONRoundTrip(t *testing.T) {
	for _, tx := range sampleTxs(t, 1) {
		enc, err := json.Marshal(tx)
		if err != nil {
			t.Fatal(err)
		}
		var back Transaction
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("type %d: %v\n%s", tx.Type(), err, enc)
		}
		if back.Hash() != tx.Hash() {
			t.Fatalf("type %d: hash differs after JSON round trip\n%s", tx.Type(), enc)
		}
	}
	// Leading zeros are accepted from users; missing fields are not.
	var tx Transaction
	if err := json.Unmarshal([]byte(`{"type":"0x02","chainId":"0x01","nonce":"0x00","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1","value":"0x0","input":"0x","accessList":[],"v":"0x0","r":"0x1","s":"0x1"}`), &tx); err != nil {
		t.Fatal(err)
	}
	if tx.Type() != DynamicFeeTxType || tx.Gas() != 21000 || tx.To() != nil {
		t.Fatal("fields")
	}
	if err := json.Unmarshal([]byte(`{"type":"0x2","chainId":"0x1","gas":"0x5208"}`), &tx); !errors.Is(err, ErrMissingField) {
		t.Fatalf("missing nonce: %v", err)
	}
	var al AccessList
	if err := json.Unmarshal([]byte(`[{"address":"0x0000000000000000000000000000000000000001","storageKeys":["0x0000000000000000000000000000000000000000000000000000000000000002"]}]`), &al); err != nil || len(al) != 1 || al[0].StorageKeys[0][31] != 2 {
		t.Fatalf("access list: %v", err)
	}
	out, _ := json.Marshal(al)
	if !bytes.Contains(out, []byte(`"storageKeys"`)) {
		t.Fatalf("access list JSON %s", out)
	}
}

// SameHash, SameAddress and IsZero answer as == on the arrays, whichever
// bytes differ.
func TestWordCompares(t *testing.T) {
	for i := range 32 {
		for _, bits := range []byte{1, 0x80, 0xff} {
			a, b := Hash{7: 7, 31: 1}, Hash{7: 7, 31: 1}
			b[i] ^= bits
			if SameHash(&a, &b) || !SameHash(&a, &a) {
				t.Errorf("SameHash: byte %d differing by %#x", i, bits)
			}
			var z Hash
			z[i] = bits
			if z.IsZero() {
				t.Errorf("IsZero with byte %d = %#x", i, bits)
			}
		}
	}
	if !(Hash{}).IsZero() {
		t.Error("IsZero of the zero hash is false")
	}
	for i := range 20 {
		for _, bits := range []byte{1, 0x80, 0xff} {
			x, y := Address{3: 3, 19: 1}, Address{3: 3, 19: 1}
			y[i] ^= bits
			if SameAddress(&x, &y) || !SameAddress(&x, &x) {
				t.Errorf("SameAddress: byte %d differing by %#x", i, bits)
			}
		}
	}
}
