package hd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// DevMnemonic is the well-known test mnemonic used by Hardhat and anvil.
// Its keys are public: never hold real value with them.
const DevMnemonic = "test test test test test test test test test test test junk"

// DevPath is the base path of the dev accounts, as Hardhat and anvil
// derive them: account i is DevPath + i.
const DevPath = "m/44'/60'/0'/0/"

// DevAccounts derives the first n Ethereum accounts (m/44'/60'/0'/0/i, no
// passphrase) of a mnemonic, after checking it.
func DevAccounts(mnemonic string, n int) ([]*secp256k1.PrivateKey, error) {
	return DevAccountsAt(mnemonic, DevPath, n)
}

// DevAccountsAt derives the first n accounts under base (base + i, no
// passphrase; anvil's --derivation-path), after checking the mnemonic.
func DevAccountsAt(mnemonic, base string, n int) ([]*secp256k1.PrivateKey, error) {
	parentPath, err := ParsePath(strings.TrimSuffix(base, "/"))
	if err != nil {
		return nil, fmt.Errorf("derivation path %q: %w", base, err)
	}
	if n < 0 {
		return nil, errors.New("hd: negative account count")
	}
	if err := ValidateMnemonic(mnemonic); err != nil {
		return nil, err
	}
	seed, err := Seed(mnemonic, "")
	if err != nil {
		return nil, err
	}
	master, err := NewMaster(seed)
	if err != nil {
		return nil, err
	}
	// Derive the shared parent (m/44'/60'/0'/0) once.
	parent, err := master.Derive(parentPath)
	if err != nil {
		return nil, err
	}
	keys := make([]*secp256k1.PrivateKey, 0, n)
	for i := 0; i < n; i++ {
		child, err := parent.Child(uint32(i))
		if err != nil {
			return nil, fmt.Errorf("account %d: %w", i, err)
		}
		keys = append(keys, child.PrivateKey())
	}
	return keys, nil
}

// DeriveKey derives the private key at path (e.g. "m/44'/60'/0'/0/0") from a
// mnemonic and optional passphrase.
func DeriveKey(mnemonic, passphrase, path string) (*secp256k1.PrivateKey, error) {
	p, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	if err := ValidateMnemonic(mnemonic); err != nil {
		return nil, err
	}
	seed, err := Seed(mnemonic, passphrase)
	if err != nil {
		return nil, err
	}
	master, err := NewMaster(seed)
	if err != nil {
		return nil, err
	}
	k, err := master.Derive(p)
	if err != nil {
		return nil, err
	}
	return k.PrivateKey(), nil
}
