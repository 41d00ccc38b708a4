package relay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// The control protocol: newline-delimited JSON on a unix socket, one response line per request.
//
//	{"op":"ping"}                                                    -> {"ok":true}
//	{"op":"set","link":ID,"dir":"ab"|"ba"|"both","delayMs":N,"rateMbps":N|null,"lossPercent":N,
//	 "jitterMs":N,"seed":N}                                          (only the fields given change)
//	{"op":"setMany","items":[{"link":..,"dir":..,...}, ...]}         (all or nothing)
//	{"op":"cut","link":ID,"dir":..}, {"op":"restore","link":ID,"dir":..} -> {"ok":true}
//	                                                                 (dir absent: both ways)
//	{"op":"stats"}                                                   -> {"ok":true,"links":[...]}
//	errors                                                           -> {"ok":false,"error":"..."}

const maxRequestBytes = 4 << 20

// setFields are the fields of a set request, and of each setMany item.
type setFields struct {
	Link        string       `json:"link"`
	Dir         string       `json:"dir"`
	DelayMs     *float64     `json:"delayMs"`
	RateMbps    optionalRate `json:"rateMbps"`
	LossPercent *float64     `json:"lossPercent"`
	JitterMs    *float64     `json:"jitterMs"`
	Seed        *float64     `json:"seed"`
}

type request struct {
	Op string `json:"op"`
	setFields
	Items []setFields `json:"items"`
}

// optionalRate tells an absent rateMbps (unchanged) from null (no cap).
type optionalRate struct {
	given bool
	value *float64
}

func (o *optionalRate) UnmarshalJSON(b []byte) error {
	o.given = true
	if string(b) == "null" {
		o.value = nil
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("rateMbps must be a number or null")
	}
	o.value = &v
	return nil
}

func (f setFields) change() Change {
	return Change{
		Link: f.Link, Dir: f.Dir, DelayMs: f.DelayMs, SetRate: f.RateMbps.given, RateMbps: f.RateMbps.value,
		LossPercent: f.LossPercent, JitterMs: f.JitterMs, Seed: f.Seed,
	}
}

type response struct {
	OK    bool         `json:"ok"`
	Error string       `json:"error,omitempty"`
	Links *[]LinkStats `json:"links,omitempty"`
}

// Handle answers one request line.
func (r *Relay) Handle(line []byte) []byte {
	resp := r.handle(line)
	out, err := json.Marshal(resp)
	if err != nil {
		out, _ = json.Marshal(response{Error: "cannot encode the response: " + err.Error()})
	}
	return out
}

func (r *Relay) handle(line []byte) response {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var req request
	if err := dec.Decode(&req); err != nil {
		return failure(fmt.Errorf("not a valid request: %v", err))
	}
	switch req.Op {
	case "ping":
		return response{OK: true}
	case "set":
		return result(r.Apply([]Change{req.change()}))
	case "setMany":
		if len(req.Items) == 0 {
			return failure(errors.New("items: give at least one change"))
		}
		changes := make([]Change, len(req.Items))
		for i, item := range req.Items {
			changes[i] = item.change()
		}
		err := r.Apply(changes)
		var ce *ChangeError
		if errors.As(err, &ce) {
			err = prefixFields(fmt.Sprintf("items[%d]", ce.Index), ce.Err)
		}
		return result(err)
	case "cut":
		return result(r.Cut(req.Link, req.Dir))
	case "restore":
		return result(r.Restore(req.Link, req.Dir))
	case "stats":
		links := r.Stats()
		return response{OK: true, Links: &links}
	case "":
		return failure(errors.New(`op: missing; one of "ping", "set", "setMany", "cut", "restore", "stats"`))
	default:
		return failure(fmt.Errorf(`op: unknown op %q; one of "ping", "set", "setMany", "cut", "restore", "stats"`, req.Op))
	}
}

func result(err error) response {
	if err != nil {
		return failure(err)
	}
	return response{OK: true}
}

func failure(err error) response {
	return response{Error: strings.ReplaceAll(err.Error(), "\n", "; ")}
}

// prefixFields names the fields of err's FieldErrors as parts of prefix, e.g. items[2].delayMs.
func prefixFields(prefix string, err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, prefixFields(prefix, e))
		}
		return errors.Join(out...)
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	field := prefix
	if fe.Field != "" {
		field += "." + fe.Field
	}
	return &FieldError{Field: field, Problem: fe.Problem}
}

// ControlServer serves the control protocol for a relay; several clients may be connected.
type ControlServer struct {
	relay    *Relay
	listener net.Listener
	path     string
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
}

// ListenControl listens on a unix socket at path. A socket file left by an emulator that is gone
// is replaced; one that still answers is an error, so two emulators never share a path.
func ListenControl(path string, r *Relay) (*ControlServer, error) {
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("control socket %s: a file that is not a socket is in the way", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("control socket %s: another emulator is listening there", path)
		}
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	s := &ControlServer{relay: r, listener: ln, path: path, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *ControlServer) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.conns == nil {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.conns[conn] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(conn)
	}
}

func (s *ControlServer) serve(conn net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	lines := bufio.NewScanner(conn)
	lines.Buffer(make([]byte, 64<<10), maxRequestBytes)
	for lines.Scan() {
		line := bytes.TrimSpace(lines.Bytes())
		if len(line) == 0 {
			continue
		}
		if _, err := conn.Write(append(s.relay.Handle(line), '\n')); err != nil {
			return
		}
	}
	if err := lines.Err(); errors.Is(err, bufio.ErrTooLong) {
		msg, _ := json.Marshal(response{Error: fmt.Sprintf("request longer than %d bytes", maxRequestBytes)})
		conn.Write(append(msg, '\n'))
	}
}

// Close stops listening, removes the socket file and ends every client connection.
func (s *ControlServer) Close() {
	s.listener.Close()
	os.Remove(s.path)
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.conns = nil
	s.mu.Unlock()
	s.wg.Wait()
}
