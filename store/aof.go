package store

// A reader of buntdb's append-only file (RESP "SET key value", "DEL key",
// "FLUSHDB"), to check and repair files. buntdb's loader silently cuts a
// file at a length running past its end, so a damaged length mid-file
// would lose the rest; this reader tells that from a torn last write.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// aofCmd is one command of a data file.
type aofCmd struct {
	off   int64 // offset of its first byte
	end   int64 // offset after its last byte
	parts []string
}

// errTorn is a command that the file ends in the middle of.
var errTorn = errors.New("the file ends inside this record")

// aofReader reads commands from a data file.
type aofReader struct {
	r   *bufio.Reader
	off int64
}

func newAOFReader(r io.Reader, off int64) *aofReader {
	return &aofReader{r: bufio.NewReaderSize(r, 64<<10), off: off}
}

// next reads the next command, or io.EOF, or an *aofError (errTorn when
// the file ends inside it). NUL bytes between commands are skipped.
func (a *aofReader) next() (aofCmd, error) {
	for {
		c, err := a.r.ReadByte()
		if err != nil {
			return aofCmd{}, err // io.EOF: clean end
		}
		if c != 0 {
			_ = a.r.UnreadByte()
			break
		}
		a.off++
	}
	cmd := aofCmd{off: a.off}
	fail := func(err error) (aofCmd, error) {
		key := ""
		if len(cmd.parts) > 1 {
			key = cmd.parts[1]
		}
		return aofCmd{}, &aofError{off: cmd.off, key: key, err: err}
	}
	n, err := a.count('*')
	if err != nil {
		return fail(err)
	}
	if n < 1 || n > 5 {
		return fail(fmt.Errorf("a record of %d parts", n))
	}
	for range n {
		size, err := a.count('$')
		if err != nil {
			return fail(err)
		}
		if size < 0 || size > 1<<30 {
			return fail(fmt.Errorf("a part of %d bytes", size))
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(a.r, buf); err != nil {
			return fail(errTorn)
		}
		a.off += int64(size + 2)
		if buf[size] != '\r' || buf[size+1] != '\n' {
			return fail(fmt.Errorf("a part of %d bytes does not end where its length says", size))
		}
		cmd.parts = append(cmd.parts, string(buf[:size]))
	}
	switch op := strings.ToLower(cmd.parts[0]); {
	case op == "set" && (len(cmd.parts) == 3 || len(cmd.parts) == 5):
	case op == "del" && len(cmd.parts) == 2:
	case op == "flushdb" && len(cmd.parts) == 1:
	default:
		return fail(fmt.Errorf("not a record: %.20q with %d parts", cmd.parts[0], len(cmd.parts)))
	}
	cmd.end = a.off
	return cmd, nil
}

// count reads a "<prefix><digits>\r\n" line.
func (a *aofReader) count(prefix byte) (int, error) {
	line, err := a.r.ReadSlice('\n')
	a.off += int64(len(line))
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errTorn
		}
		return 0, fmt.Errorf("a line longer than %d bytes", a.r.Size())
	}
	if len(line) < 4 || line[0] != prefix || line[len(line)-2] != '\r' {
		return 0, fmt.Errorf("want %q and a number, found %.20q", prefix, line)
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil {
		return 0, fmt.Errorf("want %q and a number, found %.20q", prefix, line)
	}
	return n, nil
}

// aofError is a malformed command: where it starts, its key when that much
// could be read, and what is wrong.
type aofError struct {
	off int64
	key string
	err error
}

func (e *aofError) Error() string { return e.err.Error() }

// resync returns the next position at or after from where a well-formed
// command can be read, or -1.
func resync(data []byte, from int) int {
	for i := from; i < len(data); {
		j := bytes.IndexByte(data[i:], '*')
		if j < 0 {
			return -1
		}
		at := i + j
		r := newAOFReader(bytes.NewReader(data[at:]), 0)
		if _, err := r.next(); err == nil {
			return at
		}
		i = at + 1
	}
	return -1
}

// aofScan reads every command of data, skipping damaged spans; a command
// the file ends inside is a torn last write, reported in torn.
func aofScan(data []byte) (cmds []aofCmd, damage []Damage, torn *Damage) {
	off := 0
	for off < len(data) {
		r := newAOFReader(bytes.NewReader(data[off:]), int64(off))
		for {
			cmd, err := r.next()
			if errors.Is(err, io.EOF) {
				return cmds, damage, torn
			}
			if err == nil {
				cmds = append(cmds, cmd)
				continue
			}
			var ae *aofError
			if !errors.As(err, &ae) {
				ae = &aofError{off: r.off, err: err}
			}
			next := resync(data, int(ae.off)+1)
			d := Damage{Offset: ae.off, Key: ae.key, Reason: ae.Error()}
			if next < 0 {
				d.Raw = data[ae.off:]
				if errors.Is(ae.err, errTorn) {
					torn = &d
				} else {
					damage = append(damage, d)
				}
				return cmds, damage, torn
			}
			d.Raw = data[ae.off:next]
			damage = append(damage, d)
			off = next
			break
		}
	}
	return cmds, damage, torn
}
