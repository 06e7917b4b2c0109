package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Sample is one line of the text format: a name, its labels and a value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// MaxLine bounds one line ParseText accepts.
const MaxLine = 64 << 10

// ParseText reads samples in the Prometheus text format, skipping
// comments and blank lines, for tools that read a node's /metrics (chaind
// top). Timestamps after the value are ignored.
func ParseText(r io.Reader) ([]Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), MaxLine)
	var out []Sample
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("metrics: line %d: %v", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseLine(line string) (Sample, error) {
	var s Sample
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("no value in %q", line)
	}
	s.Name, line = line[:i], line[i:]
	if line[0] == '{' {
		s.Labels = map[string]string{}
		line = line[1:]
		for {
			line = strings.TrimLeft(line, " ,")
			if strings.HasPrefix(line, "}") {
				line = line[1:]
				break
			}
			eq := strings.Index(line, `="`)
			if eq <= 0 {
				return s, fmt.Errorf("bad label in %q", line)
			}
			name := strings.TrimSpace(line[:eq])
			line = line[eq+2:]
			var val strings.Builder
			closed := false
			for j := 0; j < len(line); j++ {
				c := line[j]
				if c == '\\' && j+1 < len(line) {
					j++
					switch line[j] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(line[j])
					}
					continue
				}
				if c == '"' {
					line, closed = line[j+1:], true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return s, fmt.Errorf("unterminated label value")
			}
			s.Labels[name] = val.String()
		}
	}
	fields := strings.Fields(line)
	if len(fields) == 0 || len(fields) > 2 {
		return s, fmt.Errorf("want a value (and a timestamp) after %s", s.Name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("bad value %q", fields[0])
	}
	s.Value = v
	return s, nil
}
