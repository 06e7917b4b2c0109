package devload

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// RPCError is an error answer of the node.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Client is a minimal JSON-RPC client over one keep-alive HTTP connection
// pool. It is safe for concurrent use.
type Client struct {
	URL  string
	HTTP *http.Client
}

// NewClient talks to url.
func NewClient(url string) *Client {
	return &Client{URL: url, HTTP: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
	}}
}

// Call runs one method and decodes its result into out (if not nil).
func (c *Client) Call(out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Post(c.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, bytes.TrimSpace(data))
	}
	if r.Error != nil {
		return r.Error
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

// Quantity is a JSON-RPC hex number.
type Quantity uint64

// UnmarshalJSON implements json.Unmarshaler.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return fmt.Errorf("bad quantity %q", s)
	}
	*q = Quantity(v)
	return nil
}

// Hex renders n as a JSON-RPC quantity.
func Hex(n uint64) string { return "0x" + strconv.FormatUint(n, 16) }

// BlockNumber returns the head number.
func (c *Client) BlockNumber() (uint64, error) {
	var q Quantity
	err := c.Call(&q, "eth_blockNumber")
	return uint64(q), err
}

// BlockInfo is what the tools read of a block.
type BlockInfo struct {
	Number       Quantity     `json:"number"`
	Hash         types.Hash   `json:"hash"`
	StateRoot    types.Hash   `json:"stateRoot"`
	Timestamp    Quantity     `json:"timestamp"`
	GasUsed      Quantity     `json:"gasUsed"`
	Transactions []types.Hash `json:"transactions"`
}

// ErrNoBlock is returned for a block the node does not have.
var ErrNoBlock = errors.New("block not found")

// Block returns block n (transaction hashes only).
func (c *Client) Block(n uint64) (*BlockInfo, error) {
	var b *BlockInfo
	if err := c.Call(&b, "eth_getBlockByNumber", Hex(n), false); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoBlock, n)
	}
	return b, nil
}

// SendRaw submits a signed transaction. The request is built by hand: a
// load generator shares the machine with the node it measures, so its own
// CPU per request should be small.
func (c *Client) SendRaw(tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	const head = `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x`
	body := make([]byte, 0, len(head)+2*len(raw)+3)
	body = append(body, head...)
	body = hex.AppendEncode(body, raw)
	body = append(body, `"]}`...)
	resp, err := c.HTTP.Post(c.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(`"error"`)) && bytes.Contains(data, []byte(`"result"`)) {
		return nil
	}
	var r struct {
		Error *RPCError `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Error == nil {
		return fmt.Errorf("eth_sendRawTransaction: HTTP %d: %.200s", resp.StatusCode, bytes.TrimSpace(data))
	}
	return r.Error
}

// Nonce returns the nonce of addr at tag ("latest" or "pending").
func (c *Client) Nonce(addr types.Address, tag string) (uint64, error) {
	var q Quantity
	err := c.Call(&q, "eth_getTransactionCount", addr.Hex(), tag)
	return uint64(q), err
}

// Receipt is what the tools read of a receipt.
type Receipt struct {
	TxHash      types.Hash `json:"transactionHash"`
	BlockNumber Quantity   `json:"blockNumber"`
	Status      Quantity   `json:"status"`
}

// WaitReceipt polls for a transaction's receipt until timeout. A node
// still building its transaction index (go-ethereum's answer after a
// start on a large datadir) is asked again until then, as for a receipt
// not yet there.
func (c *Client) WaitReceipt(h types.Hash, timeout time.Duration) (*Receipt, error) {
	deadline := time.Now().Add(timeout)
	for {
		var r *Receipt
		if err := c.Call(&r, "eth_getTransactionReceipt", h.Hex()); err != nil {
			if !IndexingInProgress(err) || time.Now().After(deadline) {
				return nil, err
			}
			time.Sleep(250 * time.Millisecond)
			continue
		}
		if r != nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no receipt for %s after %s", h, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// IndexingInProgress reports whether err is a node's "transaction
// indexing is in progress" answer (go-ethereum from 1.14 on, until its
// indexer has caught up): the receipt may exist, and will be answered.
func IndexingInProgress(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && strings.Contains(re.Message, "transaction indexing is in progress")
}

// BlockReceipts returns the receipts of block n.
func (c *Client) BlockReceipts(n uint64) ([]Receipt, error) {
	var rs []Receipt
	err := c.Call(&rs, "eth_getBlockReceipts", Hex(n))
	return rs, err
}

// Req is one call of a batch.
type Req struct {
	Method string
	Params []any
	Out    any   // decoded result (may be nil)
	Err    error // the call's own error answer
}

// Batch runs the calls in one HTTP request. The returned error is about the
// request as a whole; each call's error answer lands in its Err.
func (c *Client) Batch(reqs []Req) error {
	if len(reqs) == 0 {
		return nil
	}
	msgs := make([]map[string]any, len(reqs))
	for i, r := range reqs {
		p := r.Params
		if p == nil {
			p = []any{}
		}
		msgs[i] = map[string]any{"jsonrpc": "2.0", "id": i, "method": r.Method, "params": p}
	}
	body, err := json.Marshal(msgs)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Post(c.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(data, &answers); err != nil {
		return fmt.Errorf("batch: HTTP %d: %.200s", resp.StatusCode, bytes.TrimSpace(data))
	}
	if len(answers) != len(reqs) {
		return fmt.Errorf("batch: %d answers to %d calls", len(answers), len(reqs))
	}
	for _, a := range answers {
		if a.ID < 0 || a.ID >= len(reqs) {
			return fmt.Errorf("batch: answer with unknown id %d", a.ID)
		}
		r := &reqs[a.ID]
		switch {
		case a.Error != nil:
			r.Err = a.Error
		case r.Out != nil:
			r.Err = json.Unmarshal(a.Result, r.Out)
		}
	}
	return nil
}
