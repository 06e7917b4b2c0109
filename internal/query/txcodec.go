package query

import (
	"context"

	"github.com/chaind/chaind/internal/protobuf"
)

// The tx service's codec methods: TxDecode turns TxRaw bytes (a block's
// data, CosmosTx) into the Tx they hold, TxEncode a Tx back into TxRaw
// bytes; the packed messages travel as they came (type URL and bytes), so
// a transaction decoded and encoded again is the same bytes. chaind has no
// amino codec (Ethereum transactions have no amino form), so the amino
// methods are refused.

type TxDecodeRequest struct {
	TxBytes []byte `pb:"1,tx_bytes"`
}

func (TxDecodeRequest) ProtoName() string { return "cosmos.tx.v1beta1.TxDecodeRequest" }

type TxDecodeResponse struct {
	Tx *Tx `pb:"1,tx"`
}

func (TxDecodeResponse) ProtoName() string { return "cosmos.tx.v1beta1.TxDecodeResponse" }

type TxEncodeRequest struct {
	Tx *Tx `pb:"1,tx"`
}

func (TxEncodeRequest) ProtoName() string { return "cosmos.tx.v1beta1.TxEncodeRequest" }

type TxEncodeResponse struct {
	TxBytes []byte `pb:"1,tx_bytes"`
}

func (TxEncodeResponse) ProtoName() string { return "cosmos.tx.v1beta1.TxEncodeResponse" }

type TxEncodeAminoRequest struct {
	AminoJSON string `pb:"1,amino_json"`
}

func (TxEncodeAminoRequest) ProtoName() string { return "cosmos.tx.v1beta1.TxEncodeAminoRequest" }

type TxEncodeAminoResponse struct {
	AminoBinary []byte `pb:"1,amino_binary"`
}

func (TxEncodeAminoResponse) ProtoName() string { return "cosmos.tx.v1beta1.TxEncodeAminoResponse" }

type TxDecodeAminoRequest struct {
	AminoBinary []byte `pb:"1,amino_binary"`
}

func (TxDecodeAminoRequest) ProtoName() string { return "cosmos.tx.v1beta1.TxDecodeAminoRequest" }

type TxDecodeAminoResponse struct {
	AminoJSON string `pb:"1,amino_json"`
}

func (TxDecodeAminoResponse) ProtoName() string { return "cosmos.tx.v1beta1.TxDecodeAminoResponse" }

var txCodecMessages = []protobuf.Message{TxDecodeRequest{}, TxDecodeResponse{}, TxEncodeRequest{}, TxEncodeResponse{},
	TxEncodeAminoRequest{}, TxEncodeAminoResponse{}, TxDecodeAminoRequest{}, TxDecodeAminoResponse{}}

func txCodecMethods() []*Method {
	return []*Method{
		method("TxDecode", "", (*Querier).TxDecode),
		method("TxEncode", "", (*Querier).TxEncode),
		method("TxEncodeAmino", "", (*Querier).TxEncodeAmino),
		method("TxDecodeAmino", "", (*Querier).TxDecodeAmino),
	}
}

// TxDecode decodes TxRaw bytes into their body, auth info and signatures.
func (q *Querier) TxDecode(_ context.Context, r *TxDecodeRequest) (*TxDecodeResponse, error) {
	if len(r.TxBytes) == 0 {
		return nil, Errorf(InvalidArgument, "invalid empty tx bytes")
	}
	var raw TxRaw
	if err := protobuf.Unmarshal(r.TxBytes, &raw); err != nil {
		return nil, Errorf(InvalidArgument, "tx parse error: not a TxRaw: %v", err)
	}
	tx := Tx{Body: &TxBody{}, AuthInfo: &AuthInfo{}, Signatures: raw.Signatures}
	if err := protobuf.Unmarshal(raw.BodyBytes, tx.Body); err != nil {
		return nil, Errorf(InvalidArgument, "tx parse error: body: %v", err)
	}
	if err := protobuf.Unmarshal(raw.AuthInfoBytes, tx.AuthInfo); err != nil {
		return nil, Errorf(InvalidArgument, "tx parse error: auth info: %v", err)
	}
	if tx.Signatures == nil {
		tx.Signatures = [][]byte{}
	}
	return &TxDecodeResponse{Tx: &tx}, nil
}

// TxEncode encodes a transaction as TxRaw bytes.
func (q *Querier) TxEncode(_ context.Context, r *TxEncodeRequest) (*TxEncodeResponse, error) {
	if r.Tx == nil {
		return nil, Errorf(InvalidArgument, "invalid empty tx")
	}
	raw := TxRaw{Signatures: r.Tx.Signatures}
	if r.Tx.Body != nil {
		raw.BodyBytes = protobuf.Marshal(r.Tx.Body)
	}
	if r.Tx.AuthInfo != nil {
		raw.AuthInfoBytes = protobuf.Marshal(r.Tx.AuthInfo)
	}
	return &TxEncodeResponse{TxBytes: protobuf.Marshal(raw)}, nil
}

var errAmino = Errorf(Unimplemented, "chaind has no amino codec: its transactions are Ethereum transactions in TxRaw (TxDecode and TxEncode read and write them)")

// TxEncodeAmino is refused: see errAmino.
func (q *Querier) TxEncodeAmino(context.Context, *TxEncodeAminoRequest) (*TxEncodeAminoResponse, error) {
	return nil, errAmino
}

// TxDecodeAmino is refused: see errAmino.
func (q *Querier) TxDecodeAmino(context.Context, *TxDecodeAminoRequest) (*TxDecodeAminoResponse, error) {
	return nil, errAmino
}
