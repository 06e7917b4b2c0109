package rlp

import "errors"

// ErrTooDeep is returned by DecodeItem for lists nested deeper than
// MaxItemDepth.
var ErrTooDeep = errors.New("rlp: lists nested too deeply")

// MaxItemDepth bounds the list nesting DecodeItem accepts. No Ethereum
// structure comes near it; the bound keeps recursion safe on hostile input.
const MaxItemDepth = 1024

// Item is a decoded RLP value without a schema: a byte string or a list of
// items. Tools and tests use it to handle arbitrary RLP; typed structures
// decode themselves with Split and friends instead.
type Item struct {
	List  bool
	Bytes []byte // the string content (aliases the input); nil for lists
	Items []Item // the list elements
}

// String returns a string item.
func StringItem(b []byte) Item { return Item{Bytes: b} }

// ListItem returns a list item.
func ListItem(items ...Item) Item { return Item{List: true, Items: items} }

// DecodeItem decodes b, which must hold exactly one canonical item.
func DecodeItem(b []byte) (Item, error) {
	it, rest, err := splitItem(b, 0)
	if err != nil {
		return Item{}, err
	}
	if len(rest) != 0 {
		return Item{}, ErrTrailingBytes
	}
	return it, nil
}

func splitItem(b []byte, depth int) (Item, []byte, error) {
	k, content, rest, err := Split(b)
	if err != nil {
		return Item{}, b, err
	}
	if k != List {
		return Item{Bytes: content}, rest, nil
	}
	if depth >= MaxItemDepth {
		return Item{}, b, ErrTooDeep
	}
	it := Item{List: true, Items: []Item{}}
	for len(content) > 0 {
		var sub Item
		sub, content, err = splitItem(content, depth+1)
		if err != nil {
			return Item{}, b, err
		}
		it.Items = append(it.Items, sub)
	}
	return it, rest, nil
}

func (it *Item) contentSize() int {
	n := 0
	for i := range it.Items {
		n += it.Items[i].EncodedSize()
	}
	return n
}

// EncodedSize is the size of the item's encoding.
func (it *Item) EncodedSize() int {
	if !it.List {
		return StringSize(it.Bytes)
	}
	return ListSize(it.contentSize())
}

// AppendTo appends the item's encoding to dst.
func (it *Item) AppendTo(dst []byte) []byte {
	if !it.List {
		return AppendString(dst, it.Bytes)
	}
	dst = AppendListHeader(dst, it.contentSize())
	for i := range it.Items {
		dst = it.Items[i].AppendTo(dst)
	}
	return dst
}

// Encode returns the item's encoding.
func (it *Item) Encode() []byte { return it.AppendTo(make([]byte, 0, it.EncodedSize())) }
