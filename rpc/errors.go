package rpc

import (
	"encoding/json"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes and the ones Ethereum clients rely on.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeServer         = -32000 // transaction-pool rejections, generic server errors
	CodeLimitExceeded  = -32005
	CodeReverted       = 3 // execution reverted; data holds the revert bytes
)

// Error is a JSON-RPC error object. Handlers return it (or wrap it) to
// choose the code; any other error becomes -32000 with its text.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an error with the given code.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams reports a bad argument, naming its position.
func InvalidParams(i int, err error) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("invalid argument %d: %v", i, err)}
}

var (
	errParse          = &Error{Code: CodeParseError, Message: "parse error"}
	errEmptyBatch     = &Error{Code: CodeInvalidRequest, Message: "empty batch"}
	errInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
)

func errMethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("the method %s does not exist/is not available", method)}
}

// response is one JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}
