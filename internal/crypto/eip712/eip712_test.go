package eip712

import (
	"encoding/hex"
	"strings"
	"testing"
)

// mail is the example of the EIP-712 specification.
const mail = `{
  "types": {
    "EIP712Domain": [{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
    "Person": [{"name":"name","type":"string"},{"name":"wallet","type":"address"}],
    "Mail": [{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]
  },
  "primaryType": "Mail",
  "domain": {"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
  "message": {"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}
}`

func TestSpecExample(t *testing.T) {
	td, err := Parse([]byte(mail))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := td.EncodeType("Mail"); got != "Mail(Person from,Person to,string contents)Person(string name,address wallet)" {
		t.Errorf("encodeType = %s", got)
	}
	msg, err := td.HashStruct("Mail", td.Message)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(msg[:]); got != "c52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e" {
		t.Errorf("hashStruct(message) = %s", got)
	}
	dom, _ := td.HashStruct("EIP712Domain", td.Domain)
	if got := hex.EncodeToString(dom[:]); got != "f2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f" {
		t.Errorf("domain separator = %s", got)
	}
	d, err := td.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(d[:]); got != "be609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2" {
		t.Errorf("digest = %s", got)
	}
}

func TestBadDocuments(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"no primary type", `"primaryType": "Mail"`, "primaryType"},
		{"unknown field type", `{"name":"contents","type":"string"}`, "unknown type"},
		{"missing field", `"contents":"Hello, Bob!"`, "missing"},
		{"bad address", `"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"`, "address"},
		{"number out of range", `"chainId":1`, "out of range"},
	} {
		doc := mail
		switch c.name {
		case "no primary type":
			doc = strings.Replace(doc, c.edit, `"primaryType": ""`, 1)
		case "unknown field type":
			doc = strings.Replace(doc, c.edit, `{"name":"contents","type":"strung"}`, 1)
		case "missing field":
			doc = strings.Replace(doc, c.edit, `"other":"x"`, 1)
		case "bad address":
			doc = strings.Replace(doc, c.edit, `"0xbB"`, 1)
		case "number out of range":
			doc = strings.Replace(doc, c.edit, `"chainId":-1`, 1)
		}
		td, err := Parse([]byte(doc))
		if err == nil {
			_, err = td.Digest()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func FuzzDigest(f *testing.F) {
	f.Add([]byte(mail))
	f.Fuzz(func(t *testing.T, data []byte) {
		if td, err := Parse(data); err == nil {
			td.Digest()
		}
	})
}
