//go:build !linux

package metrics

import "errors"

// RegisterProcess reads the process's figures from Linux's /proc; on
// other systems it registers nothing and says so.
func RegisterProcess(r *Registry) error {
	return errors.New("metrics: process metrics are read from /proc, which only Linux has")
}
