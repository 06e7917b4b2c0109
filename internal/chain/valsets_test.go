package chain

import (
	"errors"
	"reflect"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

func TestValidatorUpdateIndex(t *testing.T) {
	db := NewDB(store.NewMem())
	c := &Chain{db: db}
	up := &ValidatorUpdate{Height: 20, Validators: []Validator{{Address: types.Address{1}, Power: 60}, {Address: types.Address{2}, Power: 40}}}
	block := types.Hash{9}
	if _, err := c.ValidatorUpdate(block); !errors.Is(err, ErrNotFound) {
		t.Fatalf("before: %v", err)
	}
	db.stageValidators(block, up)
	if err := db.kv.Write(&db.pending); err != nil {
		t.Fatal(err)
	}
	got, err := c.ValidatorUpdate(block)
	if err != nil || !reflect.DeepEqual(got, up) {
		t.Fatalf("got %+v %v, want %+v", got, err, up)
	}
}

func FuzzDecodeValidatorUpdate(f *testing.F) {
	f.Add(encodeValidatorUpdate(&ValidatorUpdate{Height: 10, Validators: []Validator{{Address: types.Address{1}, Power: 5}}}))
	f.Add(encodeValidatorUpdate(&ValidatorUpdate{Height: 0}))
	f.Add([]byte{0xc2, 0x01, 0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		up, err := decodeValidatorUpdate(b)
		if err != nil {
			return
		}
		again, err := decodeValidatorUpdate(encodeValidatorUpdate(up))
		if err != nil || !reflect.DeepEqual(again, up) {
			t.Fatalf("re-encoding %+v: %+v %v", up, again, err)
		}
	})
}
