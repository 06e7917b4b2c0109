package protobuf

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

type pageRequest struct {
	Key        []byte `pb:"1,key"`
	Offset     uint64 `pb:"2,offset"`
	Limit      uint64 `pb:"3,limit"`
	CountTotal bool   `pb:"4,count_total"`
	Reverse    bool   `pb:"5,reverse"`
}

func (pageRequest) ProtoName() string { return "test.PageRequest" }

type validatorsRequest struct {
	Status     string       `pb:"1,status"`
	Pagination *pageRequest `pb:"2,pagination"`
}

func (validatorsRequest) ProtoName() string { return "test.ValidatorsRequest" }

type status int32

func (status) EnumDescriptor() (string, []string) {
	return "test.Status", []string{"STATUS_UNSPECIFIED", "STATUS_ON", "STATUS_OFF"}
}

// dec is a decimal with 18 fractional digits, as Cosmos' Dec.
type dec struct{ i big.Int }

func (d dec) ProtoText() string { return d.i.String() }
func (d dec) JSONText() string {
	s := new(big.Int).Abs(&d.i).String()
	for len(s) < 19 {
		s = "0" + s
	}
	if d.i.Sign() < 0 {
		s = "-" + s
	}
	return s[:len(s)-18] + "." + s[len(s)-18:]
}
func (d *dec) ParseProtoText(s string) error {
	if _, ok := d.i.SetString(s, 10); !ok {
		return errors.New("bad dec")
	}
	return nil
}
func (d *dec) ParseJSONText(s string) error {
	a, b, _ := strings.Cut(s, ".")
	return d.ParseProtoText(a + (b + strings.Repeat("0", 18))[:18])
}

type inner struct {
	Key []byte `pb:"1,key"`
}

func (inner) ProtoName() string { return "test.Inner" }

type everything struct {
	S     string        `pb:"1,s"`
	B     []byte        `pb:"2,b"`
	On    bool          `pb:"3,on"`
	I32   int32         `pb:"4,i32"`
	I64   int64         `pb:"5,i64"`
	U32   uint32        `pb:"6,u32"`
	U64   uint64        `pb:"7,u64"`
	E     status        `pb:"8,e"`
	D     dec           `pb:"9,d"`
	T     time.Time     `pb:"10,t"`
	Dur   time.Duration `pb:"11,dur"`
	A     *Any          `pb:"12,a"`
	M     *inner        `pb:"13,m"`
	V     inner         `pb:"14,v"`
	IDs   []uint64      `pb:"15,ids"`
	Names []string      `pb:"16,names"`
	Ms    []inner       `pb:"17,ms"`
	Opt   *string       `pb:"18,opt"`
	Es    []status      `pb:"19,es"`
}

func (everything) ProtoName() string { return "test.Everything" }

// The worked example of the research notes: a validators request with a
// status and a limit of 10 is 24 bytes.
func TestMarshalWorkedExample(t *testing.T) {
	m := &validatorsRequest{Status: "BOND_STATUS_BONDED", Pagination: &pageRequest{Limit: 10}}
	got := Marshal(m)
	want := "0a12" + hex.EncodeToString([]byte("BOND_STATUS_BONDED")) + "1202180a"
	if hex.EncodeToString(got) != want {
		t.Fatalf("got %x\nwant %s", got, want)
	}
	var back validatorsRequest
	if err := Unmarshal(got, &back); err != nil || !reflect.DeepEqual(&back, m) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func sample() *everything {
	var d dec
	d.i.SetString("100000000000000000", 10) // 0.1
	opt := ""
	return &everything{
		S: "héllo", B: []byte{1, 2, 3}, On: true, I32: -5, I64: -1 << 40, U32: 7, U64: 1 << 63,
		E: 2, D: d, T: time.Date(2024, 1, 2, 3, 4, 5, 600_000_000, time.UTC), Dur: 90 * time.Second,
		A: &Any{Msg: &inner{Key: []byte{9}}}, M: &inner{Key: []byte("k")},
		IDs: []uint64{1, 300}, Names: []string{"a", ""}, Ms: []inner{{}, {Key: []byte{1}}}, Opt: &opt,
		Es: []status{1, 2},
	}
}

func TestRoundTrip(t *testing.T) {
	m := sample()
	b := Marshal(m)
	var back everything
	if err := Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// The Any comes back packed.
	if back.A == nil || back.A.TypeURL != "/test.Inner" || !bytes.Equal(back.A.Value, Marshal(&inner{Key: []byte{9}})) {
		t.Fatalf("any: %+v", back.A)
	}
	back.A = m.A
	if back.Opt == nil || *back.Opt != "" {
		t.Fatal("a present empty optional string was lost")
	}
	if !reflect.DeepEqual(Marshal(&back), b) {
		t.Fatalf("re-encoding differs")
	}
	if back.D.i.Cmp(&m.D.i) != 0 || !back.T.Equal(m.T) || back.I64 != m.I64 || back.I32 != -5 {
		t.Fatalf("values differ: %+v", back)
	}
	// Zero scalars are omitted; non-nullable messages, times, durations
	// and decimals are written (as the Cosmos SDK's gogoproto does), the
	// zero time as 0001-01-01.
	if got := hex.EncodeToString(Marshal(&everything{})); got != "4a0130"+"520b088092b8c398feffffff01"+"5a00"+"7200" {
		t.Fatalf("zero message: %s", got)
	}
}

func TestUnpackedRepeatedAccepted(t *testing.T) {
	b := AppendTag(nil, 15, WireVarint)
	b = AppendVarint(b, 4)
	b = AppendTag(b, 15, WireVarint)
	b = AppendVarint(b, 5)
	var m everything
	if err := Unmarshal(b, &m); err != nil || !reflect.DeepEqual(m.IDs, []uint64{4, 5}) {
		t.Fatalf("%v %v", m.IDs, err)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	cases := map[string]string{
		"truncated varint":    "08",
		"length past the end": "0a05abcd",
		"wrong wire type":     "0d00000000",
		"invalid utf8":        "0a02ffff",
		"field zero":          "0001",
		"group":               "0b",
		"bad decimal":         "4a03616263",
		"bad nanos":           "5206" + "10ffffffff0f",
		"overlong varint":     "08ffffffffffffffffffff01",
	}
	for name, in := range cases {
		b, _ := hex.DecodeString(in)
		var m everything
		if err := Unmarshal(b, &m); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Unknown fields of every wire type are skipped.
	b, _ := hex.DecodeString("f80101" + "f9010100000000000000" + "fd0101000000" + "fa010161")
	var m everything
	if err := Unmarshal(b, &m); err != nil {
		t.Errorf("unknown fields: %v", err)
	}
	// Nesting is bounded.
	deep := []byte{}
	for range 100 {
		deep = AppendBytes(nil, 1, deep)
	}
	var d nest
	if err := Unmarshal(deep, &d); !errors.Is(err, ErrMalformed) {
		t.Errorf("deep nesting: %v", err)
	}
}

type nest struct {
	N *nest `pb:"1,n"`
}

func (nest) ProtoName() string { return "test.Nest" }

func TestJSON(t *testing.T) {
	got := string(MarshalJSON(sample()))
	want := `{"s":"héllo","b":"AQID","on":true,"i32":-5,"i64":"-1099511627776","u32":7,"u64":"9223372036854775808",` +
		`"e":"STATUS_OFF","d":"0.100000000000000000","t":"2024-01-02T03:04:05.600Z","dur":"90s",` +
		`"a":{"@type":"/test.Inner","key":"CQ=="},"m":{"key":"aw=="},"v":{"key":null},"ids":["1","300"],` +
		`"names":["a",""],"ms":[{"key":null},{"key":"AQ=="}],"opt":"","es":["STATUS_ON","STATUS_OFF"]}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	empty := string(MarshalJSON(&everything{}))
	if !strings.Contains(empty, `"t":"0001-01-01T00:00:00Z"`) || !strings.Contains(empty, `"a":null`) ||
		!strings.Contains(empty, `"ids":[]`) || !strings.Contains(empty, `"e":"STATUS_UNSPECIFIED"`) {
		t.Fatalf("empty: %s", empty)
	}
}

func TestFormatTime(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "0001-01-01T00:00:00Z"},
		{time.Unix(0, 1000).UTC(), "1970-01-01T00:00:00.000001Z"},
		{time.Unix(0, 1).UTC(), "1970-01-01T00:00:00.000000001Z"},
	} {
		if got := FormatTimestamp(c.t); got != c.want {
			t.Errorf("%v: %s", c.t, got)
		}
	}
	if got := FormatDuration(-1500 * time.Millisecond); got != "-1.500s" {
		t.Errorf("duration: %s", got)
	}
}

func TestSetField(t *testing.T) {
	var m validatorsRequest
	for path, val := range map[string]string{"status": "x", "pagination.limit": "10", "pagination.count_total": "true", "pagination.key": "AQ=="} {
		if err := SetField(&m, path, val); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if m.Status != "x" || m.Pagination.Limit != 10 || !m.Pagination.CountTotal || !bytes.Equal(m.Pagination.Key, []byte{1}) {
		t.Fatalf("%+v %+v", m, m.Pagination)
	}
	if err := SetField(&m, "pagination.limit", "-1"); err == nil || errors.Is(err, ErrUnknownField) {
		t.Errorf("negative limit: %v", err)
	}
	if err := SetField(&m, "nope", "1"); !errors.Is(err, ErrUnknownField) {
		t.Errorf("unknown: %v", err)
	}
	var e everything
	if err := SetField(&e, "e", "STATUS_ON"); err != nil || e.E != 1 {
		t.Errorf("enum by name: %v %v", e.E, err)
	}
	if err := SetField(&e, "e", "2"); err != nil || e.E != 2 {
		t.Errorf("enum by number: %v %v", e.E, err)
	}
	if err := SetField(&e, "e", "STATUS_MAYBE"); err == nil {
		t.Error("bad enum name accepted")
	}
	if err := SetField(&e, "d", "1.5"); err != nil || e.D.ProtoText() != "1500000000000000000" {
		t.Errorf("dec: %v %v", e.D.ProtoText(), err)
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry(File{
		Name: "test/everything.proto", Package: "test",
		Messages: []Message{everything{}, inner{}, validatorsRequest{}, pageRequest{}},
		Enums:    []Enum{status(0)},
		Services: []Service{{Name: "Query", Methods: []Method{{Name: "Get", In: validatorsRequest{}, Out: everything{}}}}},
	})
	if got := r.Services(); !reflect.DeepEqual(got, []string{"test.Query"}) {
		t.Fatalf("services %v", got)
	}
	file, ok := r.FileContaining("test.Query.Get")
	if !ok || file != "test/everything.proto" {
		t.Fatalf("method symbol: %s %v", file, ok)
	}
	sent := map[string]bool{}
	fds, ok := r.FileWithDeps(file, sent)
	if !ok || len(fds) != 4 { // the file, timestamp, duration and any
		t.Fatalf("%d files", len(fds))
	}
	var fd FileDescriptorProto
	if err := Unmarshal(fds[0], &fd); err != nil {
		t.Fatal(err)
	}
	if fd.Name != file || len(fd.MessageType) != 4 || len(fd.Dependency) != 3 || fd.Service[0].Method[0].InputType != ".test.ValidatorsRequest" {
		t.Fatalf("%+v", fd)
	}
	// Files already sent are not sent again.
	if again, _ := r.FileWithDeps(file, sent); len(again) != 1 {
		t.Fatalf("resent %d files", len(again))
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(Marshal(sample()))
	f.Add(Marshal(&validatorsRequest{Status: "s", Pagination: &pageRequest{Key: []byte{1}, Limit: 3}}))
	f.Add([]byte{0x0a, 0x05})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m everything
		if err := Unmarshal(b, &m); err != nil {
			return
		}
		// What decodes re-encodes and decodes to the same message.
		again := Marshal(&m)
		var m2 everything
		if err := Unmarshal(again, &m2); err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if !bytes.Equal(Marshal(&m2), again) {
			t.Fatal("encoding is not stable")
		}
		MarshalJSON(&m)
	})
}

// The hand-written JSON string writer agrees with encoding/json.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\ <tag> & \n\r\t\x00\x1f", "naïve \u2028 \u2029 \xff\xfe", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// mode is an enum whose numbers are not consecutive, as SignMode's.
type mode int32

func (mode) EnumDescriptor() (string, []string) {
	names := make([]string, 128)
	names[0], names[1], names[127] = "MODE_UNSPECIFIED", "MODE_DIRECT", "MODE_AMINO"
	return "test.Mode", names
}

// outer and its nested message outer.Single, which refers back to outer,
// as cosmos.tx.v1beta1.ModeInfo and ModeInfo.Multi do.
type outer struct {
	Single *outerSingle `pb:"1,single"`
}

func (outer) ProtoName() string { return "test.Outer" }

type outerSingle struct {
	Mode  mode    `pb:"1,mode"`
	Again []outer `pb:"2,again"`
}

func (outerSingle) ProtoName() string { return "test.Outer.Single" }

// A message named Outer.Single is described nested in Outer, and field
// types name it in full; an enum's missing numbers are left out of its
// descriptor, render as numbers in JSON and are not accepted by name.
func TestNestedAndSparseEnum(t *testing.T) {
	r := NewRegistry(File{Name: "test/outer.proto", Package: "test", Messages: []Message{outer{}, outerSingle{}}, Enums: []Enum{mode(0)}})
	fds, _ := r.FileWithDeps("test/outer.proto", map[string]bool{})
	var fd FileDescriptorProto
	if err := Unmarshal(fds[0], &fd); err != nil {
		t.Fatal(err)
	}
	if len(fd.MessageType) != 1 || fd.MessageType[0].Name != "Outer" || len(fd.MessageType[0].NestedType) != 1 {
		t.Fatalf("%+v", fd.MessageType)
	}
	single := fd.MessageType[0].NestedType[0]
	if single.Name != "Single" || fd.MessageType[0].Field[0].TypeName != ".test.Outer.Single" || single.Field[1].TypeName != ".test.Outer" {
		t.Fatalf("%+v %+v", single, fd.MessageType[0].Field[0])
	}
	if vs := fd.EnumType[0].Value; len(vs) != 3 || *vs[2].Number != 127 || vs[2].Name != "MODE_AMINO" {
		t.Fatalf("enum values %+v", vs)
	}
	if f, ok := r.FileContaining("test.Outer.Single"); !ok || f != "test/outer.proto" {
		t.Fatalf("nested symbol: %s %v", f, ok)
	}
	if got := string(MarshalJSON(&outerSingle{Mode: 127})); got != `{"mode":"MODE_AMINO","again":[]}` {
		t.Errorf("json %s", got)
	}
	if got := string(MarshalJSON(&outerSingle{Mode: 5})); got != `{"mode":"5","again":[]}` {
		t.Errorf("json of a missing number %s", got)
	}
	var s outerSingle
	if err := SetField(&s, "mode", ""); err == nil {
		t.Errorf("an empty name set mode to %d", s.Mode)
	}
	if err := SetField(&s, "mode", "MODE_AMINO"); err != nil || s.Mode != 127 {
		t.Errorf("by name: %d %v", s.Mode, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a nested message without its outer message did not panic")
		}
	}()
	NewRegistry(File{Name: "test/lost.proto", Package: "test", Messages: []Message{lost{}}})
}

type lost struct {
	N uint32 `pb:"1,n"`
}

func (lost) ProtoName() string { return "test.Gone.Lost" }
