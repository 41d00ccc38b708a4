package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Config is the emulator's config file: every link it relays.
type Config struct {
	Links []LinkConfig `json:"links"`
}

// LinkConfig is one link between two nodes. A datagram arriving on A.Listen goes through AB and
// leaves from B.Listen towards B.Peer; the reverse goes through BA and leaves from A.Listen.
type LinkConfig struct {
	ID string    `json:"id"`
	A  EndConfig `json:"a"`
	B  EndConfig `json:"b"`
	AB Shaping   `json:"ab"`
	BA Shaping   `json:"ba"`
}

// EndConfig is one node's side of a link. Peer must be the node's own WireGuard address:port, and
// the node must have Listen configured as its endpoint for the other node: WireGuard roams to
// whatever source last spoke, so the relay always sends to a node from the address it expects.
type EndConfig struct {
	Listen string `json:"listen"`
	Peer   string `json:"peer"`
}

// Shaping is what one direction of a link does to its packets.
type Shaping struct {
	// DelayMs is the one-way propagation delay.
	DelayMs float64 `json:"delayMs"`
	// RateMbps caps the UDP payload bit rate; nil or 0 means no cap.
	RateMbps *float64 `json:"rateMbps"`
	// LossPercent is the chance (0..100) that a packet is dropped at random.
	LossPercent float64 `json:"lossPercent"`
	// JitterMs is the standard deviation of the one-way delay (direction.go says how it is drawn).
	JitterMs float64 `json:"jitterMs"`
	// Seed starts the direction's loss and jitter draws, so that a run can be repeated; nil picks
	// one at random (stats report the seed in use either way). A float because the config and
	// the control socket are JSON that TypeScript writes: a whole number up to 2^53-1.
	Seed *float64 `json:"seed"`
}

// Limits on values, so that a typo (a delay in microseconds, a rate in bit/s) is caught.
const (
	maxDelayMs  = 60_000
	maxJitterMs = 10_000
	maxRateMbps = 1_000_000
	// maxSeed is the largest integer a JSON number read by JavaScript keeps exactly.
	maxSeed = 1<<53 - 1
)

// FieldError is a problem with one field of an input, named like `links[3].ab.delayMs`.
type FieldError struct {
	Field   string
	Problem string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return e.Field + ": " + e.Problem
}

// fieldErrors collects problems so that one pass reports all of them.
type fieldErrors []error

func (errs *fieldErrors) add(field, format string, args ...any) {
	*errs = append(*errs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

func (errs fieldErrors) err() error { return errors.Join(errs...) }

// LoadConfig reads and validates a config file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data)
}

// ParseConfig decodes a config, rejecting unknown fields, and validates it.
func ParseConfig(data []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("not a valid emulator config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Validate reports every problem in the config, each naming its field.
func (c *Config) Validate() error {
	var errs fieldErrors
	ids := map[string]int{}
	listens := map[netip.AddrPort]string{}
	for i, l := range c.Links {
		at := fmt.Sprintf("links[%d]", i)
		if strings.TrimSpace(l.ID) == "" {
			errs.add(at+".id", "must not be empty (e.g. \"sydney-pune/0\")")
		} else if first, dup := ids[l.ID]; dup {
			errs.add(at+".id", "%q is already the id of links[%d]; give each link its own id", l.ID, first)
		} else {
			ids[l.ID] = i
		}
		for _, end := range []struct {
			name string
			cfg  EndConfig
		}{{"a", l.A}, {"b", l.B}} {
			field := at + "." + end.name
			if listen, ok := checkAddrPort(&errs, field+".listen", end.cfg.Listen); ok {
				if owner, dup := listens[listen]; dup {
					errs.add(field+".listen", "%s is already used by %s; every end needs its own address:port", listen, owner)
				} else {
					listens[listen] = field + ".listen"
				}
			}
			checkAddrPort(&errs, field+".peer", end.cfg.Peer)
		}
		checkShaping(&errs, at+".ab", l.AB)
		checkShaping(&errs, at+".ba", l.BA)
	}
	return errs.err()
}

func checkAddrPort(errs *fieldErrors, field, value string) (netip.AddrPort, bool) {
	ap, err := netip.ParseAddrPort(value)
	switch {
	case err != nil:
		errs.add(field, "%q is not an address:port (e.g. \"198.18.1.1:40001\")", value)
	case ap.Port() == 0:
		errs.add(field, "%q needs a port other than 0", value)
	default:
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
	}
	return netip.AddrPort{}, false
}

func checkShaping(errs *fieldErrors, at string, s Shaping) {
	checkDelay(errs, at+".delayMs", s.DelayMs)
	if s.RateMbps != nil {
		checkRate(errs, at+".rateMbps", *s.RateMbps)
	}
	checkLoss(errs, at+".lossPercent", s.LossPercent)
	checkJitter(errs, at+".jitterMs", s.JitterMs)
	if s.Seed != nil {
		checkSeed(errs, at+".seed", *s.Seed)
	}
}

func checkDelay(errs *fieldErrors, field string, v float64) {
	checkRange(errs, field, v, 0, maxDelayMs, "a one-way delay in milliseconds")
}

func checkRate(errs *fieldErrors, field string, v float64) {
	checkRange(errs, field, v, 0, maxRateMbps, "megabits per second; null or 0 for no cap")
}

func checkLoss(errs *fieldErrors, field string, v float64) {
	checkRange(errs, field, v, 0, 100, "a percentage")
}

func checkJitter(errs *fieldErrors, field string, v float64) {
	checkRange(errs, field, v, 0, maxJitterMs, "the standard deviation of the one-way delay in milliseconds")
}

func checkSeed(errs *fieldErrors, field string, v float64) {
	if v != math.Trunc(v) || v < 0 || v > maxSeed {
		errs.add(field, "must be a whole number from 0 to 2^53-1 (%d), got %s", maxSeed, strconv.FormatFloat(v, 'f', -1, 64))
	}
}

func checkRange(errs *fieldErrors, field string, v, lo, hi float64, meaning string) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		errs.add(field, "must be a finite number (%s)", meaning)
	case v < lo:
		errs.add(field, "must be >= %g (%s), got %g", lo, meaning, v)
	case v > hi:
		errs.add(field, "must be <= %g (%s), got %g", hi, meaning, v)
	}
}
