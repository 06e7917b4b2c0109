// Package opslog is the operator's window on a node's JSON-RPC port: a
// passphrase login that hands out short-lived JWTs, and behind it the
// debug routes under /log/ that capture API call statistics and submitted
// transactions (with the client address each came from), report the
// capture status and clean the tables.
//
// Routes, all answering JSON:
//
//	POST /authenticate {"passphrase": "..."}  -> {"token", "expiresAt"}
//	GET  /log/api-stats  ?api_name=&success=&reason=&hash=&start=&end=   (summary: stats.go)
//	GET  /log/api-calls  ?page=&max=&api_name=&success=&reason=&hash=&start=&end=
//	GET  /log/txs        ?page=&max=&type=&reason=&injected=&ip=&to=&from=&hash=&start=&end=
//	GET  /log/status
//	GET  /log/startTxCapture, /log/stopTxCapture
//	GET  /log/startRPCCapture, /log/stopRPCCapture
//	GET  /log/cleanStatTable, /log/cleanTxTable
//
// A token is taken from "Authorization: Bearer T", a bare "Authorization:
// T" or the access_token cookie. Failed logins are throttled per client
// address. The passphrase is compared in constant time and never logged.
// Capture tables live in a directory (the node's data directory) as JSON
// lines, each bounded in size: the oldest rows go first.
package opslog

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/jwt"
	"github.com/chaind/chaind/rpc"
)

// Config configures the debug routes.
type Config struct {
	Passphrase []byte // required
	// Dir keeps the capture tables and status across restarts; "" keeps
	// them in memory.
	Dir string
	// MaxBytes bounds each table's encoded size (default 16 MiB).
	MaxBytes int64
	TokenTTL time.Duration    // default 12 h
	Now      func() time.Time // default time.Now
	// ClientIP is the address a request is recorded and throttled under
	// (default: the front's, from the request's context, else the peer).
	ClientIP func(*http.Request) string
	// FailedLogins is how many failed logins a client address may make
	// before further attempts are answered 429 for a minute, doubling
	// with each failure after it up to an hour (default 5; throttle.go).
	FailedLogins int
	// Trusted are the operator's addresses: held to their own failures
	// only, never to the lock-out all other addresses share during an
	// attack from many.
	Trusted []netip.Prefix
}

// Log holds the capture tables and serves the routes.
type Log struct {
	cfg    Config
	secret []byte   // signs tokens; fresh each start, so restarts log everyone out
	pass   [32]byte // SHA-256 of the passphrase, for a constant-time compare
	stats  *table[StatRow]
	txs    *table[TxRow]

	mu       sync.Mutex
	status   Status
	throttle throttle
}

// StatRow is one captured API call.
type StatRow struct {
	ID        int64   `json:"id"`
	APIName   string  `json:"api_name"`
	TFinal    float64 `json:"tfinal"`    // milliseconds the call took
	Timestamp int64   `json:"timestamp"` // ms since the epoch
	NodeURL   *string `json:"nodeUrl"`   // always null: the node serves calls itself
	Success   int     `json:"success"`   // 1 or 0
	Reason    *string `json:"reason"`    // the error, when it failed
	Hash      *string `json:"hash"`      // a submitted transaction's hash
}

// TxRow is one captured transaction submission.
type TxRow struct {
	ID        int64   `json:"id"`
	Hash      string  `json:"hash"`
	Type      string  `json:"type"` // contract deployment, coin transfer, contract call, other
	To        string  `json:"to"`
	From      string  `json:"from"`
	Injected  int     `json:"injected"` // 1 when the pool took it
	Accepted  int     `json:"accepted"` // 0 bad tx, 1 success, 2 busy, 3 other failure
	Reason    string  `json:"reason"`
	IP        string  `json:"ip"`
	Timestamp int64   `json:"timestamp"`
	NodeURL   *string `json:"nodeUrl"`
}

// Status is what /log/status answers; times are ms since the epoch, 0
// when unset.
type Status struct {
	IsRecordingInterface        bool  `json:"isRecordingInterface"`
	IsRecordingTx               bool  `json:"isRecordingTx"`
	TxRecordingStartTime        int64 `json:"txRecordingStartTime"`
	TxRecordingEndTime          int64 `json:"txRecordingEndTime"`
	InterfaceRecordingStartTime int64 `json:"interfaceRecordingStartTime"`
	InterfaceRecordingEndTime   int64 `json:"interfaceRecordingEndTime"`
	TxDBCleanTime               int64 `json:"txDB_cleanTime"`
	InterfaceDBCleanTime        int64 `json:"interfaceDB_cleanTime"`
}

// ErrNoPassphrase is returned by New without a passphrase: the routes must
// then stay off.
var ErrNoPassphrase = errors.New("opslog: no passphrase: the debug routes stay off")

// New opens the capture tables in cfg.Dir.
func New(cfg Config) (*Log, error) {
	if len(cfg.Passphrase) == 0 {
		return nil, ErrNoPassphrase
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 16 << 20
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 12 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FailedLogins <= 0 {
		cfg.FailedLogins = 5
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = func(r *http.Request) string {
			if ip := front.ClientFrom(r.Context()).IP(); ip != "" {
				return ip
			}
			return r.RemoteAddr
		}
	}
	l := &Log{cfg: cfg, secret: make([]byte, 32), pass: sha256.Sum256(cfg.Passphrase),
		throttle: throttle{perIP: map[string]*backoff{}, trusted: cfg.Trusted}}
	rand.Read(l.secret)
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
			return nil, err
		}
		if b, err := os.ReadFile(filepath.Join(cfg.Dir, "status.json")); err == nil {
			json.Unmarshal(b, &l.status)
		}
	}
	var err error
	if l.stats, err = openTable(tablePath(cfg.Dir, "api-stats.jsonl"), cfg.MaxBytes,
		func(r *StatRow, id int64) { r.ID = id }, func(r *StatRow) int64 { return r.ID }); err != nil {
		return nil, err
	}
	if l.txs, err = openTable(tablePath(cfg.Dir, "txs.jsonl"), cfg.MaxBytes,
		func(r *TxRow, id int64) { r.ID = id }, func(r *TxRow) int64 { return r.ID }); err != nil {
		l.stats.close()
		return nil, err
	}
	return l, nil
}

// Close closes the table files.
func (l *Log) Close() error { return errors.Join(l.stats.close(), l.txs.close()) }

// Status returns the capture status.
func (l *Log) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status
}

// setStatus changes the status under the lock and saves it.
func (l *Log) setStatus(fn func(s *Status)) {
	l.mu.Lock()
	fn(&l.status)
	s := l.status
	l.mu.Unlock()
	if l.cfg.Dir != "" {
		b, _ := json.Marshal(s)
		tmp := filepath.Join(l.cfg.Dir, "status.json.tmp")
		if os.WriteFile(tmp, b, 0o600) == nil {
			os.Rename(tmp, filepath.Join(l.cfg.Dir, "status.json"))
		}
	}
}

func (l *Log) nowMs() int64 { return l.cfg.Now().UnixMilli() }

// Observe records a served JSON-RPC call: its statistics while RPC capture
// is on, and a submitted transaction (with the client's address) while
// transaction capture is on. Install it with rpc.Server.Observe.
func (l *Log) Observe(ctx context.Context, c rpc.Call) {
	st := l.Status()
	if !st.IsRecordingInterface && !st.IsRecordingTx {
		return
	}
	submit := isSubmit(c.Method)
	var hash *string
	if h, ok := c.Result.(string); ok && submit {
		hash = &h
	} else if submit && c.Result != nil {
		if b, err := json.Marshal(c.Result); err == nil {
			var h string
			if json.Unmarshal(b, &h) == nil {
				hash = &h
			}
		}
	}
	if st.IsRecordingInterface {
		row := StatRow{APIName: c.Method, TFinal: float64(c.Duration.Microseconds()) / 1000, Timestamp: l.nowMs(), Success: 1, Hash: hash}
		if c.Err != nil {
			row.Success = 0
			msg := c.Err.Error()
			row.Reason = &msg
		}
		l.stats.add(row)
	}
	if st.IsRecordingTx && submit {
		row := describeTx(c)
		if hash != nil {
			row.Hash = *hash
		}
		row.IP = front.ClientFrom(ctx).IP()
		row.Timestamp = l.nowMs()
		l.txs.add(row)
	}
}

var (
	errNoToken  = errors.New("No token provided")
	errBadToken = errors.New("unauthorized")
)

// authorize checks the request's token; the front asks it for every
// request under Prefix (see Handler).
func (l *Log) authorize(r *http.Request) error {
	tok := strings.TrimSpace(r.Header.Get("Authorization"))
	if len(tok) > 7 && strings.EqualFold(tok[:7], "Bearer ") {
		tok = strings.TrimSpace(tok[7:])
	}
	if tok == "" {
		if c, err := r.Cookie("access_token"); err == nil {
			tok = c.Value
		}
	}
	if tok == "" {
		return errNoToken
	}
	if _, err := jwt.Verify(l.secret, tok, l.cfg.Now(), 30*time.Second); err != nil {
		return errBadToken
	}
	return nil
}

// refuse answers a refused token as the routes answer everything.
func refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	writeJSON(w, ref.Status, message{ref.Message})
}

// passphraseOK compares in constant time (over fixed-size digests, so the
// length of the passphrase does not leak either).
func (l *Log) passphraseOK(p string) bool {
	h := sha256.Sum256([]byte(p))
	return subtle.ConstantTimeCompare(h[:], l.pass[:]) == 1
}

// Prefix is the path of the debug routes.
const Prefix = "/log/"

// Handler serves /authenticate and /log/*, and adds to o, the options of
// the listener that serves it, the front's guard that lets only a request
// with a valid token reach a path under Prefix: the routes check no token
// themselves, every decision is the front's, so the two are given out
// together.
func (l *Log) Handler(o *front.Options) http.Handler {
	o.Guards = append(o.Guards, front.Guard{Prefix: Prefix, Auth: l.authorize, Refuse: refuse})
	return http.HandlerFunc(l.serve)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

type message struct {
	Message string `json:"message"`
}

func (l *Log) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/authenticate" {
		l.login(w, r)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		writeJSON(w, http.StatusMethodNotAllowed, message{"use GET"})
		return
	}
	now := l.nowMs()
	switch r.URL.Path {
	case "/log/api-stats":
		l.serveSummary(w, r)
	case "/log/api-calls":
		l.serveCalls(w, r)
	case "/log/txs":
		l.serveTxs(w, r)
	case "/log/status":
		writeJSON(w, http.StatusOK, l.Status())
	case "/log/startTxCapture":
		l.toggle(w, func(s *Status) bool {
			if s.IsRecordingTx {
				return false
			}
			s.IsRecordingTx, s.TxRecordingStartTime, s.TxRecordingEndTime = true, now, 0
			return true
		}, "Transaction status recording enabled", "Tx recording already enabled")
	case "/log/stopTxCapture":
		l.toggle(w, func(s *Status) bool {
			if !s.IsRecordingTx {
				return false
			}
			s.IsRecordingTx, s.TxRecordingEndTime = false, now
			return true
		}, "Transaction status recording disabled", "Tx recording already stopped")
	case "/log/startRPCCapture":
		l.toggle(w, func(s *Status) bool {
			if s.IsRecordingInterface {
				return false
			}
			s.IsRecordingInterface, s.InterfaceRecordingStartTime, s.InterfaceRecordingEndTime = true, now, 0
			return true
		}, "RPC interface recording enabled", "Interface stats are recording already")
	case "/log/stopRPCCapture":
		l.toggle(w, func(s *Status) bool {
			if !s.IsRecordingInterface {
				return false
			}
			s.IsRecordingInterface, s.InterfaceRecordingEndTime = false, now
			return true
		}, "RPC interface recording disabled", "Interface stats recording already stopped")
	case "/log/cleanStatTable":
		l.clean(w, l.stats.clean, func(s *Status) { s.InterfaceDBCleanTime = now })
	case "/log/cleanTxTable":
		l.clean(w, l.txs.clean, func(s *Status) { s.TxDBCleanTime = now })
	default:
		writeJSON(w, http.StatusNotFound, message{"no such debug route: " + r.URL.Path})
	}
}

// toggle applies a start or stop; an idempotent repeat answers 200 with
// the "already" message.
func (l *Log) toggle(w http.ResponseWriter, fn func(s *Status) bool, done, already string) {
	changed := false
	l.setStatus(func(s *Status) { changed = fn(s) })
	if changed {
		writeJSON(w, http.StatusOK, message{done})
	} else {
		writeJSON(w, http.StatusOK, message{already})
	}
}

func (l *Log) clean(w http.ResponseWriter, clean func() error, stamp func(s *Status)) {
	if err := clean(); err != nil {
		writeJSON(w, http.StatusInternalServerError, message{"clean failed: " + err.Error()})
		return
	}
	l.setStatus(stamp)
	writeJSON(w, http.StatusOK, struct {
		Success bool `json:"success"`
	}{true})
}

// login answers POST /authenticate.
func (l *Log) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSON(w, http.StatusMethodNotAllowed, message{"use POST with a JSON body {\"passphrase\": ...}"})
		return
	}
	// The body is read before anything is decided, so that attempts
	// arriving together are decided one by one (throttle.attempt).
	var body struct {
		Passphrase *string `json:"passphrase"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	if err := dec.Decode(&body); err != nil || body.Passphrase == nil {
		writeJSON(w, http.StatusBadRequest, message{"body must be JSON {\"passphrase\": \"...\"}"})
		return
	}
	ip := l.cfg.ClientIP(r)
	now := l.cfg.Now()
	rule := backoffRule{free: l.cfg.FailedLogins, base: time.Minute, max: time.Hour}
	checked, ok, wait := l.throttle.attempt(ip, rule, now, func() bool { return l.passphraseOK(*body.Passphrase) })
	if !checked {
		front.SetRetryAfter(w.Header(), wait)
		writeJSON(w, http.StatusTooManyRequests, message{"too many failed logins; try again in " + wait.Round(time.Second).String()})
		return
	}
	if !ok {
		writeJSON(w, http.StatusUnauthorized, message{"wrong passphrase"})
		return
	}
	exp := now.Add(l.cfg.TokenTTL)
	tok := jwt.Sign(l.secret, jwt.Claims{IssuedAt: now.Unix(), ExpiresAt: exp.Unix(), Subject: "debug"})
	http.SetCookie(w, &http.Cookie{Name: "access_token", Value: tok, Path: "/", Expires: exp,
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	writeJSON(w, http.StatusOK, struct {
		Token     string `json:"token"`
		ExpiresAt int64  `json:"expiresAt"` // ms since the epoch
	}{tok, exp.Unix() * 1000})
}

// pageArgs reads page and max (bounded by limit).
func pageArgs(r *http.Request, def, limit int) (page, n int, err error) {
	q := r.URL.Query()
	n = def
	if v := q.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 0 {
			return 0, 0, errors.New("page must be a whole number from 0")
		}
	}
	if v := q.Get("max"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > limit {
			return 0, 0, errors.New("max must be a whole number from 1 to " + strconv.Itoa(limit))
		}
	}
	return page, n, nil
}

// timeArg reads start or end: ms since the epoch or a yyyy-mm-dd date (UTC
// midnight); absent gives def.
func timeArg(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms, nil
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil {
		return 0, errors.New(name + " must be ms since the epoch or yyyy-mm-dd")
	}
	return t.UnixMilli(), nil
}

// pageOf is a page of rows: current is the page number, prev and next
// are present when such a page exists.
type pageOf[R any] struct {
	Current int  `json:"current"`
	Length  int  `json:"length"`
	Max     *int `json:"max,omitempty"`
	Prev    *int `json:"prev,omitempty"`
	Next    *int `json:"next,omitempty"`
	Data    []R  `json:"data"`
}

func makePage[R any](t *table[R], keep func(*R) bool, page, n int, withMax bool) pageOf[R] {
	// One more than asked says whether a next page exists.
	rows := t.page(keep, page*n, n+1)
	p := pageOf[R]{Current: page}
	if len(rows) > n {
		rows = rows[:n]
		next := page + 1
		p.Next = &next
	}
	if page > 0 {
		prev := page - 1
		p.Prev = &prev
	}
	if withMax {
		p.Max = &n
	}
	p.Data, p.Length = rows, len(rows)
	return p
}

// serveCalls answers /log/api-calls: the captured calls, paged.
func (l *Log) serveCalls(w http.ResponseWriter, r *http.Request) {
	page, n, err := pageArgs(r, 5000, 5000)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, message{err.Error()})
		return
	}
	keep, _, _, err := callFilter(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, message{err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, makePage(l.stats, keep, page, n, true))
}

// callFilter reads the query of the call routes: the rows it keeps and
// the start and end asked for (ms since the epoch).
func callFilter(r *http.Request) (keep func(*StatRow) bool, start, end int64, err error) {
	start, err1 := timeArg(r, "start", 0)
	end, err2 := timeArg(r, "end", 1<<62)
	if err := errors.Join(err1, err2); err != nil {
		return nil, 0, 0, err
	}
	q := r.URL.Query()
	name, reason, hash, success := q.Get("api_name"), q.Get("reason"), q.Get("hash"), q.Get("success")
	if success != "" && success != "0" && success != "1" && success != "true" && success != "false" {
		return nil, 0, 0, errors.New("success must be 0, 1, true or false")
	}
	keep = func(s *StatRow) bool {
		switch {
		case s.Timestamp < start || s.Timestamp > end:
		case name != "" && s.APIName != name:
		case reason != "" && (s.Reason == nil || !strings.Contains(*s.Reason, reason)):
		case hash != "" && (s.Hash == nil || !strings.EqualFold(*s.Hash, hash)):
		case success != "" && (s.Success == 1) != (success == "1" || success == "true"):
		default:
			return true
		}
		return false
	}
	return keep, start, end, nil
}

func (l *Log) serveTxs(w http.ResponseWriter, r *http.Request) {
	page, n, err := pageArgs(r, 1000, 5000)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, message{err.Error()})
		return
	}
	start, err1 := timeArg(r, "start", 0)
	end, err2 := timeArg(r, "end", 1<<62)
	if err := errors.Join(err1, err2); err != nil {
		writeJSON(w, http.StatusBadRequest, message{err.Error()})
		return
	}
	q := r.URL.Query()
	typ, reason, injected, ip := q.Get("type"), q.Get("reason"), q.Get("injected"), q.Get("ip")
	to, from, hash := q.Get("to"), q.Get("from"), q.Get("hash")
	keep := func(t *TxRow) bool {
		switch {
		case t.Timestamp < start || t.Timestamp > end:
		case typ != "" && t.Type != typ:
		case reason != "" && !strings.Contains(t.Reason, reason):
		case injected != "" && strconv.Itoa(t.Injected) != injected:
		case ip != "" && t.IP != ip:
		case to != "" && !strings.EqualFold(t.To, to):
		case from != "" && !strings.EqualFold(t.From, from):
		case hash != "" && !strings.EqualFold(t.Hash, hash):
		default:
			return true
		}
		return false
	}
	writeJSON(w, http.StatusOK, makePage(l.txs, keep, page, n, false))
}
