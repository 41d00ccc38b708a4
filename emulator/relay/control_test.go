package relay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// controlClient speaks the control protocol over one connection.
type controlClient struct {
	conn  net.Conn
	lines *bufio.Scanner
}

func dialControl(t *testing.T, path string) *controlClient {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &controlClient{conn: conn, lines: bufio.NewScanner(conn)}
}

// call sends one request line and decodes the response line.
func (c *controlClient) call(t *testing.T, request string) map[string]any {
	t.Helper()
	if _, err := fmt.Fprintln(c.conn, request); err != nil {
		t.Fatal(err)
	}
	if !c.lines.Scan() {
		t.Fatalf("no response to %s: %v", request, c.lines.Err())
	}
	var resp map[string]any
	if err := json.Unmarshal(c.lines.Bytes(), &resp); err != nil {
		t.Fatalf("response %q: %v", c.lines.Text(), err)
	}
	return resp
}

func (c *controlClient) ok(t *testing.T, request string) map[string]any {
	t.Helper()
	resp := c.call(t, request)
	if resp["ok"] != true {
		t.Fatalf("%s: %v", request, resp["error"])
	}
	return resp
}

func (c *controlClient) fails(t *testing.T, request, want string) {
	t.Helper()
	resp := c.call(t, request)
	if resp["ok"] != false || !strings.Contains(fmt.Sprint(resp["error"]), want) {
		t.Errorf("%s: got %v, want an error containing %q", request, resp, want)
	}
}

func startControl(t *testing.T, net8 int) (*Relay, *ControlServer, string) {
	t.Helper()
	r, _ := startRelay(t, net8, [2]Shaping{shaping(10, 0, 0), shaping(20, 50, 1)}, [2]Shaping{})
	s, path := serveControl(t, r)
	return r, s, path
}

// serveControl serves r's control protocol on a socket in a temporary directory.
func serveControl(t *testing.T, r *Relay) (*ControlServer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "control.sock")
	s, err := ListenControl(path, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, path
}

func TestControlSetAndStats(t *testing.T) {
	r, _, path := startControl(t, 10)
	c := dialControl(t, path)
	c.ok(t, `{"op":"ping"}`)
	c.ok(t, `{"op":"set","link":"l0/0","dir":"ab","delayMs":12.5,"rateMbps":100}`)
	c.ok(t, `{"op":"set","link":"l0/0","dir":"both","lossPercent":2}`)
	c.ok(t, `{"op":"set","link":"l0/0","dir":"ba","rateMbps":null}`)

	s := r.Stats()[0]
	if s.AB.DelayMs != 12.5 || s.AB.RateMbps == nil || *s.AB.RateMbps != 100 || s.AB.LossPercent != 2 {
		t.Errorf("ab after set: %+v", s.AB)
	}
	if s.BA.DelayMs != 20 || s.BA.RateMbps != nil || s.BA.LossPercent != 2 {
		t.Errorf("ba after set (delay kept, rate uncapped, loss 2): %+v", s.BA)
	}

	resp := c.ok(t, `{"op":"stats"}`)
	links := resp["links"].([]any)
	first := links[0].(map[string]any)
	ab := first["ab"].(map[string]any)
	if first["id"] != "l0/0" || first["cut"] != false || ab["delayMs"] != 12.5 || ab["rateMbps"] != 100.0 ||
		first["ba"].(map[string]any)["rateMbps"] != nil {
		t.Errorf("stats: %v", first)
	}
	for _, key := range []string{"packets", "bytes", "queued"} {
		if _, ok := ab[key]; !ok {
			t.Errorf("stats ab lacks %q: %v", key, ab)
		}
	}
	drops := ab["drops"].(map[string]any)
	for _, key := range []string{"cut", "loss", "queue", "foreign"} {
		if _, ok := drops[key]; !ok {
			t.Errorf("stats ab.drops lacks %q: %v", key, drops)
		}
	}
}

func TestControlRejectsBadRequestsNamingTheField(t *testing.T) {
	r, _, path := startControl(t, 11)
	c := dialControl(t, path)
	c.fails(t, `{"op":"set","link":"x-y/0","dir":"ab","delayMs":1}`, `unknown link "x-y/0"`)
	c.fails(t, `{"op":"set","link":"l0/0","dir":"up","delayMs":1}`, `dir: must be "ab", "ba" or "both"`)
	c.fails(t, `{"op":"set","link":"l0/0","dir":"ab","delayMs":-3}`, "delayMs: must be >= 0")
	c.fails(t, `{"op":"set","link":"l0/0","dir":"ab","rateMbps":"fast"}`, "rateMbps must be a number or null")
	c.fails(t, `{"op":"set","link":"l0/0","dir":"ab"}`, "nothing to change")
	c.fails(t, `{"op":"set","link":"l0/0","dir":"ab","delay":3}`, `unknown field "delay"`)
	c.fails(t, `{"op":"cut","link":"nope"}`, `unknown link "nope"`)
	c.fails(t, `{"op":"jump"}`, `unknown op "jump"`)
	c.fails(t, `not json`, "not a valid request")
	// The connection still works after errors, and nothing was changed.
	c.ok(t, `{"op":"ping"}`)
	if s := r.Stats()[0].AB; s.DelayMs != 10 {
		t.Errorf("a rejected request changed the delay to %g", s.DelayMs)
	}

	exact := c.call(t, `{"op":"set","link":"x-y/0","dir":"ab","delayMs":1}`)
	if exact["error"] != `unknown link "x-y/0"` {
		t.Errorf(`error text %q, want exactly unknown link "x-y/0"`, exact["error"])
	}
}

func TestControlSetManyIsAllOrNothing(t *testing.T) {
	r, _, path := startControl(t, 12)
	c := dialControl(t, path)
	c.fails(t, `{"op":"setMany","items":[{"link":"l0/0","dir":"both","delayMs":99},{"link":"l1/0","dir":"ab","lossPercent":101}]}`, "items[1].lossPercent: must be <= 100")
	c.fails(t, `{"op":"setMany","items":[{"link":"l0/0","dir":"ab","delayMs":1},{"link":"zz","dir":"ab","delayMs":1}]}`,
		`items[1]: unknown link "zz"`)
	if s := r.Stats()[0]; s.AB.DelayMs != 10 || s.BA.DelayMs != 20 {
		t.Errorf("a rejected setMany applied its good items: delays %g/%g", s.AB.DelayMs, s.BA.DelayMs)
	}

	c.ok(t, `{"op":"setMany","items":[{"link":"l0/0","dir":"both","delayMs":99},{"link":"l1/0","dir":"ba","rateMbps":7}]}`)
	s := r.Stats()
	if s[0].AB.DelayMs != 99 || s[0].BA.DelayMs != 99 || s[1].BA.RateMbps == nil || *s[1].BA.RateMbps != 7 {
		t.Errorf("setMany not applied: %+v", s)
	}
}

func TestControlCutRestore(t *testing.T) {
	r, _, path := startControl(t, 13)
	c := dialControl(t, path)
	c.ok(t, `{"op":"cut","link":"l1/0"}`)
	if s := r.Stats(); s[0].Cut || !s[1].Cut {
		t.Errorf("after cut l1/0: cut flags %v %v", s[0].Cut, s[1].Cut)
	}
	c.ok(t, `{"op":"restore","link":"l1/0"}`)
	if r.Stats()[1].Cut {
		t.Error("still cut after restore")
	}
}

func TestControlServesSeveralClientsAtOnce(t *testing.T) {
	_, _, path := startControl(t, 14)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("unix", path)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			lines := bufio.NewScanner(conn)
			for j := 0; j < 50; j++ {
				for _, req := range []string{fmt.Sprintf(`{"op":"set","link":"l0/0","dir":"both","delayMs":%d}`, i*100+j), `{"op":"stats"}`} {
					fmt.Fprintln(conn, req)
					if !lines.Scan() || !strings.HasPrefix(lines.Text(), `{"ok":true`) {
						t.Errorf("client %d: %s -> %q %v", i, req, lines.Text(), lines.Err())
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestControlSocketIsExclusiveAndRemovedOnClose(t *testing.T) {
	r, s, path := startControl(t, 15)
	if _, err := ListenControl(path, r); err == nil || !strings.Contains(err.Error(), "another emulator is listening") {
		t.Errorf("second listener on %s: %v", path, err)
	}
	c := dialControl(t, path)
	s.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file still there after Close: %v", err)
	}
	if _, err := fmt.Fprintln(c.conn, `{"op":"ping"}`); err == nil && c.lines.Scan() {
		t.Error("a client connection still answered after Close")
	}

	// A socket file left by a process that is gone is replaced.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	s2, err := ListenControl(path, r)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	s2.Close()
}
