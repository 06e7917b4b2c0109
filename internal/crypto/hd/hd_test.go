package hd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
)

func TestWordlistDigest(t *testing.T) {
	// SHA-256 of the official english.txt (one word per line, final newline).
	const want = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
	if len(wordlist) != 2048 {
		t.Fatalf("wordlist has %d words", len(wordlist))
	}
	sum := sha256.Sum256([]byte(strings.Join(wordlist, "\n") + "\n"))
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("wordlist digest %s, want %s", got, want)
	}
}

func TestMnemonicVectors(t *testing.T) {
	// From the BIP-39 reference vectors (passphrase "TREZOR").
	tests := []struct {
		entropy, mnemonic, seed string
	}{
		{
			"00000000000000000000000000000000",
			"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
			"c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
		},
		{
			"7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f",
			"legal winner thank year wave sausage worth useful legal winner thank yellow",
			"",
		},
		{
			"ffffffffffffffffffffffffffffffff",
			"zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
			"",
		},
		{
			"0000000000000000000000000000000000000000000000000000000000000000",
			"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art",
			"",
		},
	}
	for _, tc := range tests {
		ent, _ := hex.DecodeString(tc.entropy)
		m, err := NewMnemonic(ent)
		if err != nil || m != tc.mnemonic {
			t.Errorf("NewMnemonic(%s) = %q, %v", tc.entropy, m, err)
		}
		got, err := MnemonicToEntropy(tc.mnemonic)
		if err != nil || !bytes.Equal(got, ent) {
			t.Errorf("MnemonicToEntropy(%q) = %x, %v", tc.mnemonic, got, err)
		}
		if tc.seed != "" {
			seed, err := Seed(tc.mnemonic, "TREZOR")
			if err != nil || hex.EncodeToString(seed) != tc.seed {
				t.Errorf("Seed(%q) = %x, %v", tc.mnemonic, seed, err)
			}
		}
	}
}

func TestMnemonicRejects(t *testing.T) {
	tests := []struct {
		m   string
		err error
	}{
		{"", ErrWordCount},
		{"test test test", ErrWordCount},
		{strings.Repeat("abandon ", 13), ErrWordCount},
		{"test test test test test test test test test test test test", ErrChecksum},
		{"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon", ErrChecksum},
		{"test test test test test test test test test test test junkk", ErrUnknownWord},
		{"Test test test test test test test test test test test junk", ErrUnknownWord},
	}
	for _, tc := range tests {
		if err := ValidateMnemonic(tc.m); !errors.Is(err, tc.err) {
			t.Errorf("ValidateMnemonic(%q) = %v, want %v", tc.m, err, tc.err)
		}
	}
	if err := ValidateMnemonic(DevMnemonic); err != nil {
		t.Errorf("dev mnemonic rejected: %v", err)
	}
	if _, err := Seed(DevMnemonic, "pässword"); !errors.Is(err, ErrNotASCII) {
		t.Errorf("non-ASCII passphrase: %v", err)
	}
	if _, err := NewMnemonic(make([]byte, 17)); !errors.Is(err, ErrEntropyLength) {
		t.Errorf("17-byte entropy: %v", err)
	}
}

func TestBIP32Vector1(t *testing.T) {
	seed, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f")
	m, err := NewMaster(seed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, key, chain, xprv, xpub string
	}{
		{"m", "e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35",
			"873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508",
			"xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi",
			"xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"},
		{"m/0'", "edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea",
			"47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141",
			"xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7",
			"xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw"},
		{"m/0'/1", "", "",
			"xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU4pWcQDnRnrVA1xe8fs",
			"xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ"},
	}
	for _, tc := range tests {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		k, err := m.Derive(p)
		if err != nil {
			t.Fatal(err)
		}
		if tc.key != "" {
			if got := hex.EncodeToString(crypto.FromPrivateKey(k.PrivateKey())); got != tc.key {
				t.Errorf("%s key %s, want %s", tc.path, got, tc.key)
			}
			cc := k.ChainCode()
			if got := hex.EncodeToString(cc[:]); got != tc.chain {
				t.Errorf("%s chain code %s, want %s", tc.path, got, tc.chain)
			}
		}
		if got := k.String(); got != tc.xprv {
			t.Errorf("%s xprv %s, want %s", tc.path, got, tc.xprv)
		}
		if got := k.PublicString(); got != tc.xpub {
			t.Errorf("%s xpub %s, want %s", tc.path, got, tc.xpub)
		}
	}
}

func TestDevAccounts(t *testing.T) {
	keys, err := DevAccounts(DevMnemonic, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ addr, key string }{
		{"f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
		{"70997970c51812dc3a010c7d01b50e0d17dc79c8", "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
		{"3c44cdddb6a900fa2b585dd299e03d12fa4293bc", ""},
	}
	for i, w := range want {
		addr := crypto.AddressOf(keys[i])
		if got := hex.EncodeToString(addr[:]); got != w.addr {
			t.Errorf("account %d address %s, want %s", i, got, w.addr)
		}
		if w.key != "" {
			if got := hex.EncodeToString(crypto.FromPrivateKey(keys[i])); got != w.key {
				t.Errorf("account %d key %s, want %s", i, got, w.key)
			}
		}
	}
	k, err := DeriveKey(DevMnemonic, "", "m/44'/60'/0'/0/1")
	if err != nil || !k.Key.Equals(&keys[1].Key) {
		t.Errorf("DeriveKey disagrees with DevAccounts: %v", err)
	}
	// Another base path, as anvil --derivation-path "m/44'/60'/1'/0/"
	// derives it (anvil 1.7.1's --config-out).
	for _, c := range []struct{ base, addr0, addr1 string }{
		{DevPath, "f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "70997970c51812dc3a010c7d01b50e0d17dc79c8"},
		{"m/44'/60'/1'/0/", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "40fbbe484b8ee6139af08446950b088e10b2306a"},
		{"m/44'/60'/1'/0", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "40fbbe484b8ee6139af08446950b088e10b2306a"},
	} {
		ks, err := DevAccountsAt(DevMnemonic, c.base, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.base, err)
		}
		a0, a1 := crypto.AddressOf(ks[0]), crypto.AddressOf(ks[1])
		if hex.EncodeToString(a0[:]) != c.addr0 || hex.EncodeToString(a1[:]) != c.addr1 {
			t.Errorf("%s: %x %x, want %s %s", c.base, a0, a1, c.addr0, c.addr1)
		}
	}
	if _, err := DevAccountsAt(DevMnemonic, "44/60", 1); err == nil {
		t.Error("a path without m/ accepted")
	}
	if _, err := DevAccounts("test test test", 1); err == nil {
		t.Error("bad mnemonic accepted")
	}
}

func TestParsePath(t *testing.T) {
	good := map[string][]uint32{
		"m":                  {},
		"m/0":                {0},
		"m/44'/60'/0'/0/7":   EthereumPath(7),
		"m/44h/60H/0'/0/7":   EthereumPath(7),
		"m/2147483647'":      {0xffffffff},
		"m/2147483647/1'/2h": {2147483647, 1 + HardenedOffset, 2 + HardenedOffset},
	}
	for s, want := range good {
		got, err := ParsePath(s)
		if err != nil || len(got) != len(want) {
			t.Errorf("ParsePath(%q) = %v, %v", s, got, err)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("ParsePath(%q) = %v, want %v", s, got, want)
			}
		}
	}
	if got := FormatPath(EthereumPath(3)); got != "m/44'/60'/0'/0/3" {
		t.Errorf("FormatPath = %s", got)
	}
	for _, s := range []string{"", "/0", "x/0", "m/", "m//0", "m/-1", "m/+1", "m/2147483648", "m/01", "m/1''", "m/a", "m/0x1", " m/0"} {
		if p, err := ParsePath(s); !errors.Is(err, ErrPath) {
			t.Errorf("ParsePath(%q) = %v, %v; want ErrPath", s, p, err)
		}
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"m/44'/60'/0'/0/0", "m", "m/1h/2H/3", "m/99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		back, err := ParsePath(FormatPath(p))
		if err != nil || len(back) != len(p) {
			t.Fatalf("round trip of %q failed: %v", s, err)
		}
	})
}

func FuzzMnemonic(f *testing.F) {
	f.Add(DevMnemonic)
	f.Add("zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong")
	f.Add("abandon")
	f.Fuzz(func(t *testing.T, m string) {
		ent, err := MnemonicToEntropy(m)
		if err != nil {
			return
		}
		back, err := NewMnemonic(ent)
		if err != nil || back != strings.Join(strings.Fields(m), " ") {
			t.Fatalf("%q decodes to %x which encodes to %q (%v)", m, ent, back, err)
		}
	})
}

func BenchmarkDevAccounts(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := DevAccounts(DevMnemonic, 10); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBIP32Vector2 is BIP-32's test vector 2 (a 64-byte seed, normal and
// hardened children with large indices).
func TestBIP32Vector2(t *testing.T) {
	seed, _ := hex.DecodeString("fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542")
	m, err := NewMaster(seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, xprv, xpub string }{
		{"m",
			"xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U",
			"xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB"},
		{"m/0",
			"xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt",
			"xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"},
		{"m/0/2147483647'",
			"xprv9wSp6B7kry3Vj9m1zSnLvN3xH8RdsPP1Mh7fAaR7aRLcQMKTR2vidYEeEg2mUCTAwCd6vnxVrcjfy2kRgVsFawNzmjuHc2YmYRmagcEPdU9",
			"xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a"},
	} {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		k, err := m.Derive(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.String(); got != tc.xprv {
			t.Errorf("%s xprv %s, want %s", tc.path, got, tc.xprv)
		}
		if got := k.PublicString(); got != tc.xpub {
			t.Errorf("%s xpub %s, want %s", tc.path, got, tc.xpub)
		}
	}
}
