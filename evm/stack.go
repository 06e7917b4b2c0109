package evm

import (
	"unsafe"

	"github.com/holiman/uint256"
)

const stackLimit = 1024

// Stack is the EVM operand stack. It is a fixed array so that operations
// work on pointers into it without allocating; frames take stacks from a
// pool because a 32 KiB array is too large to zero per call.
type Stack struct {
	data [stackLimit]uint256.Int
	n    int
}

// freeStacks keeps finished frames' stacks (see freeList): 64 of them,
// deeper than most calls go.
var freeStacks = freeList[*Stack]{budget: 64 * stackSize}

const stackSize = int(unsafe.Sizeof(Stack{}))

func newStack() *Stack {
	if s, ok := freeStacks.get(); ok {
		return s
	}
	return new(Stack)
}

func returnStack(s *Stack) {
	s.n = 0
	if !freeStacks.put(s, stackSize) {
		freeStacks.overflow(s)
	}
}

// Len returns the number of items on the stack.
func (s *Stack) Len() int { return s.n }

func (s *Stack) push(v *uint256.Int) {
	s.data[s.n] = *v
	s.n++
}

// pushN returns a pointer to a fresh slot on top, for callers that fill it
// in place.
func (s *Stack) pushSlot() *uint256.Int {
	s.n++
	return &s.data[s.n-1]
}

func (s *Stack) pop() uint256.Int {
	s.n--
	return s.data[s.n]
}

func (s *Stack) peek() *uint256.Int { return &s.data[s.n-1] }

// back returns the n'th item from the top (0 = top).
func (s *Stack) back(n int) *uint256.Int { return &s.data[s.n-n-1] }

func (s *Stack) dup(n int) {
	s.data[s.n] = s.data[s.n-n]
	s.n++
}

func (s *Stack) swap(n int) {
	s.data[s.n-1], s.data[s.n-n-1] = s.data[s.n-n-1], s.data[s.n-1]
}
