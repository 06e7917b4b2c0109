package querytest

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// SDKGoldens is where the recordings are, from a package directory of
// the module (dir is the module root relative to it: "..", "../..").
func SDKGoldens(root string) string { return filepath.Join(root, "testdata", "sdk050") }

// LoadSDK reads one recording into v; ok is false when none was made.
func LoadSDK(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

// ProtoDefs are the SDK's definitions of the services chaind serves:
// each method's request, answer and REST binding, and every message they
// reach (recorded by internal/tools/sdkprotos from the SDK's .proto
// files).
type ProtoDefs struct {
	Methods  map[string]ProtoMethod  `json:"methods"`  // "cosmos.bank.v1beta1.Query/Balance"
	Messages map[string][]ProtoField `json:"messages"` // by full name, fields by number
}

// ProtoMethod is one rpc of a service.
type ProtoMethod struct {
	In, Out string // full message names
	Get     string // the google.api.http GET path, if any
}

// ProtoField is one field of a message. Type is a scalar's name,
// "message", "enum" or "map"; TypeName the message's or enum's full name.
type ProtoField struct {
	Name     string `json:"name"`
	Number   int    `json:"number"`
	Type     string `json:"type"`
	TypeName string `json:"type_name,omitempty"`
	Repeated bool   `json:"repeated,omitempty"`
}
