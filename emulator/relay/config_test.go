package relay

import (
	"strings"
	"testing"
)

const goodLink = `{"id":"sydney-pune/0",
  "a":{"listen":"198.18.1.1:40001","peer":"198.18.1.2:51820"},
  "b":{"listen":"198.18.2.1:40001","peer":"198.18.2.2:51820"},
  "ab":{"delayMs":40.5,"rateMbps":167,"lossPercent":0},
  "ba":{"delayMs":40.5,"rateMbps":null,"lossPercent":0}}`

func TestParseConfigAcceptsTheDocumentedShape(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"links":[` + goodLink + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Links[0]
	if l.ID != "sydney-pune/0" || l.B.Peer != "198.18.2.2:51820" || l.AB.DelayMs != 40.5 ||
		l.AB.RateMbps == nil || *l.AB.RateMbps != 167 || l.BA.RateMbps != nil {
		t.Errorf("parsed %+v", l)
	}
}

func TestParseConfigReadsJitterAndSeed(t *testing.T) {
	link := strings.Replace(goodLink, `"lossPercent":0}`, `"lossPercent":0,"jitterMs":1.5,"seed":9007199254740991}`, 1)
	cfg, err := ParseConfig([]byte(`{"links":[` + link + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	ab, ba := cfg.Links[0].AB, cfg.Links[0].BA
	if ab.JitterMs != 1.5 || ab.Seed == nil || uint64(*ab.Seed) != maxSeed || ba.JitterMs != 0 || ba.Seed != nil {
		t.Errorf("parsed ab %+v, ba %+v", ab, ba)
	}
}

func TestParseConfigNamesTheBadField(t *testing.T) {
	second := func(edit func(string) string) string {
		other := strings.NewReplacer("sydney-pune/0", "pune-perth/0", "198.18.1.", "198.18.3.", "198.18.2.", "198.18.4.").Replace(goodLink)
		return `{"links":[` + goodLink + `,` + edit(other) + `]}`
	}
	cases := []struct {
		name, config string
		want         []string
	}{
		{"negative delay", second(func(l string) string { return strings.Replace(l, `"delayMs":40.5`, `"delayMs":-1`, 1) }),
			[]string{"links[1].ab.delayMs: must be >= 0"}},
		{"negative rate", second(func(l string) string { return strings.Replace(l, `"rateMbps":167`, `"rateMbps":-5`, 1) }),
			[]string{"links[1].ab.rateMbps: must be >= 0"}},
		{"loss over 100", second(func(l string) string { return strings.Replace(l, `"lossPercent":0}}`, `"lossPercent":120}}`, 1) }),
			[]string{"links[1].ba.lossPercent: must be <= 100"}},
		{"negative jitter", second(func(l string) string {
			return strings.Replace(l, `"lossPercent":0}`, `"lossPercent":0,"jitterMs":-2}`, 1)
		}),
			[]string{"links[1].ab.jitterMs: must be >= 0"}},
		{"fractional seed", second(func(l string) string {
			return strings.Replace(l, `"lossPercent":0}}`, `"lossPercent":0,"seed":0.5}}`, 1)
		}),
			[]string{"links[1].ba.seed: must be a whole number from 0 to 2^53-1"}},
		{"negative seed", second(func(l string) string {
			return strings.Replace(l, `"lossPercent":0}}`, `"lossPercent":0,"seed":-1}}`, 1)
		}),
			[]string{"links[1].ba.seed: must be a whole number", "got -1"}},
		{"duplicate id", second(func(l string) string { return strings.Replace(l, "pune-perth/0", "sydney-pune/0", 1) }),
			[]string{`links[1].id: "sydney-pune/0" is already the id of links[0]`}},
		{"empty id", second(func(l string) string { return strings.Replace(l, `"pune-perth/0"`, `""`, 1) }),
			[]string{"links[1].id: must not be empty"}},
		{"duplicate listen", second(func(l string) string { return strings.Replace(l, "198.18.4.1:40001", "198.18.2.1:40001", 1) }),
			[]string{"links[1].b.listen: 198.18.2.1:40001 is already used by links[0].b.listen"}},
		{"listen without port", second(func(l string) string { return strings.Replace(l, "198.18.3.1:40001", "198.18.3.1", 1) }),
			[]string{`links[1].a.listen: "198.18.3.1" is not an address:port`}},
		{"peer port 0", second(func(l string) string { return strings.Replace(l, "198.18.3.2:51820", "198.18.3.2:0", 1) }),
			[]string{`links[1].a.peer: "198.18.3.2:0" needs a port other than 0`}},
		{"several problems at once", second(func(l string) string {
			return strings.NewReplacer(`"delayMs":40.5`, `"delayMs":-1`, "pune-perth/0", "sydney-pune/0").Replace(l)
		}), []string{"links[1].id:", "links[1].ab.delayMs:", "links[1].ba.delayMs:"}},
		{"unknown field", `{"links":[{"id":"x","delay":3}]}`, []string{`unknown field "delay"`}},
		{"not JSON", `links: []`, []string{"not a valid emulator config"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.config))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNewNamesAnEndThatCannotBeBound(t *testing.T) {
	// 192.0.2.0/24 is TEST-NET-1: never an address of this host, so binding fails without traffic.
	cfg, err := ParseConfig([]byte(`{"links":[{"id":"x/0",
	  "a":{"listen":"127.77.8.1:40001","peer":"127.77.8.2:51820"},
	  "b":{"listen":"192.0.2.1:40001","peer":"127.77.8.3:51820"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(cfg)
	if err == nil || !strings.Contains(err.Error(), "links[0].b.listen: cannot bind 192.0.2.1:40001") {
		t.Fatalf("got %v", err)
	}
	// Nothing is left bound: the same config's good end can be bound again at once.
	conn := listenUDP(t, "127.77.8.1:40001")
	conn.Close()
}
