package devload

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// SendResult is what a load phase achieved.
type SendResult struct {
	Accepted [][]*types.Transaction // per sender, in nonce order
	Retries  int                    // submissions repeated after a full pool
	Errors   map[string]int         // rejections that stopped a sender, by message
}

// Total is the number of accepted transactions.
func (r *SendResult) Total() int {
	n := 0
	for _, a := range r.Accepted {
		n += len(a)
	}
	return n
}

// Retryable reports rejections that mean "not now" rather than "never": a
// client that gets them submits the same transaction again.
func Retryable(err error) bool {
	var re *RPCError
	if errors.As(err, &re) {
		m := re.Message
		return strings.Contains(m, "txpool is full") || strings.Contains(m, "limit exceeded") ||
			strings.Contains(m, "account limit") || strings.Contains(m, "too far in the future")
	}
	return false
}

// Send submits each sender's transactions in order, one HTTP request per
// transaction, one goroutine per sender, until they are all sent or stop
// is closed. A sender whose transaction is refused for good stops (its
// later nonces could never execute).
func Send(c *Client, work [][]*types.Transaction, stop <-chan struct{}) *SendResult {
	res := &SendResult{Accepted: make([][]*types.Transaction, len(work)), Errors: map[string]int{}}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for i := range work {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			retries := 0
			defer func() { mu.Lock(); res.Retries += retries; mu.Unlock() }()
			for _, tx := range work[i] {
				for {
					select {
					case <-stop:
						return
					default:
					}
					err := c.SendRaw(tx)
					if err == nil {
						res.Accepted[i] = append(res.Accepted[i], tx)
						break
					}
					if Retryable(err) {
						retries++
						time.Sleep(10 * time.Millisecond)
						continue
					}
					mu.Lock()
					res.Errors[err.Error()]++
					mu.Unlock()
					return
				}
			}
		}(i)
	}
	wg.Wait()
	return res
}

// SignAll pre-signs perSender transactions of kind for every key, from the
// given starting nonces, on all cores.
func SignAll(s *Signer, kind Kind, keys []*secp256k1.PrivateKey, nonces []uint64, perSender int, token types.Address) ([][]*types.Transaction, error) {
	out := make([][]*types.Transaction, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i], errs[i] = s.Workload(kind, keys[i], nonces[i], perSender, token)
		}(i)
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// Prepare funds the senders from funder (a dev account) with ether and,
// for KindERC20, deploys the token from funder and gives each sender a
// share. It waits until all of that is in blocks and returns the token
// address (zero for KindTransfer).
func Prepare(c *Client, s *Signer, kind Kind, funder *secp256k1.PrivateKey, senders []*secp256k1.PrivateKey) (types.Address, error) {
	from := Address(funder)
	nonce, err := c.Nonce(from, "pending")
	if err != nil {
		return types.Address{}, err
	}
	value := new(uint256.Int).Mul(uint256.NewInt(100), uint256.NewInt(1e18))
	var last *types.Transaction
	send := func(to *types.Address, v *uint256.Int, gas uint64, data []byte) error {
		tx, err := s.Sign(funder, nonce, to, v, gas, data)
		if err != nil {
			return err
		}
		if err := c.SendRaw(tx); err != nil {
			return fmt.Errorf("funding transaction %d: %w", nonce, err)
		}
		nonce++
		last = tx
		return nil
	}
	for _, k := range senders {
		to := Address(k)
		if err := send(&to, value, TransferGas, nil); err != nil {
			return types.Address{}, err
		}
	}
	var token types.Address
	if kind == KindERC20 {
		token = CreateAddress(from, nonce)
		if err := send(nil, nil, DeployGas, TokenInitCode()); err != nil {
			return types.Address{}, err
		}
		share := uint64(1) << 60
		for _, k := range senders {
			if err := send(&token, nil, ERC20Gas, TransferData(Address(k), share)); err != nil {
				return types.Address{}, err
			}
		}
	}
	r, err := c.WaitReceipt(last.Hash(), 60*time.Second)
	if err != nil {
		return types.Address{}, err
	}
	if r.Status != 1 {
		return types.Address{}, fmt.Errorf("preparation transaction %s failed", last.Hash())
	}
	return token, nil
}
