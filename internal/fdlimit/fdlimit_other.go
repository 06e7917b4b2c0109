//go:build !unix

package fdlimit

func raise() (int, error)   { return 0, ErrUnsupported }
func current() (int, error) { return 0, ErrUnsupported }
