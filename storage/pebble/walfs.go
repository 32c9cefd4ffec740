package pebble

import (
	"path/filepath"
	"sync"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walZeroAhead is how far ahead of a write-ahead log's data walFS writes
// zeros.
const walZeroAhead = 1 << 20

// walFS is the embedded store's filesystem on disk: vfs.Default, except that
// a write-ahead log that Pebble creates new (not a recycled one) is written
// with zeros ahead of its data, instead of being preallocated with
// fallocate(FALLOC_FL_KEEP_SIZE).
//
// Why: a synced commit appends a few hundred bytes to the log and
// fdatasyncs it. Into a recycled log (an old one renamed, fully written)
// that is a data write only. Into a log preallocated with fallocate, every
// fdatasync must also journal the file's new size and the conversion of
// the unwritten extent it wrote into: measured 2-3 times as long per
// single synced insert (tuning.go, Memtable). Pebble preallocates each new
// log to 110% of the memtable size and recycles logs only once a flush
// frees one, so with larger memtables a fresh store's first logs (all of
// them, for the first hundreds of MiB written) took that slow path. With
// zeros written ahead, a log's size and blocks are already there: one
// fdatasync in walZeroAhead's worth of log writes carries the metadata,
// the others only data, as into a recycled log.
//
// A reader of the log meets the zeros after its last record as Pebble
// meets a preallocated or recycled log's tail: a zeroed chunk ends the log
// (pebble/record ErrZeroedChunk), which is what they are for in Pebble's
// design ("usually occurs due to log file preallocation").
type walFS struct {
	vfs.FS
}

func isWAL(name string) bool { return filepath.Ext(name) == ".log" }

// Create implements vfs.FS.
func (fs walFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !isWAL(name) {
		return f, err
	}
	return &zeroAheadFile{File: f}, nil
}

// ReuseForWrite implements vfs.FS: a recycled log is fully written up to
// its size already; beyond it, zeros go ahead as in a new one.
func (fs walFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil || !isWAL(newname) {
		return f, err
	}
	z := &zeroAheadFile{File: f}
	if fi, err := f.Stat(); err == nil {
		z.zeroed = fi.Size()
	}
	return z, nil
}

// zeroAheadFile is a log written sequentially (vfs.File: Write and Sync
// are called one at a time), with zeros written ahead of its data.
type zeroAheadFile struct {
	vfs.File
	mu     sync.Mutex
	off    int64 // where the next Write goes
	zeroed int64 // the file is written (data or zeros) up to here
	zeros  []byte
}

// Preallocate implements vfs.File: Write's zeros take its place.
func (f *zeroAheadFile) Preallocate(offset, length int64) error { return nil }

// Write implements vfs.File: p at the file's offset, after zeros up to
// walZeroAhead past its end when it goes beyond what is written.
func (f *zeroAheadFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	end := f.off + int64(len(p))
	if end > f.zeroed {
		// Zeros from the data's end to the next walZeroAhead boundary past it.
		to := (end/walZeroAhead + 1) * walZeroAhead
		if f.zeros == nil {
			f.zeros = make([]byte, 64<<10)
		}
		for at := end; at < to; {
			n := min(int64(len(f.zeros)), to-at)
			if _, err := f.File.WriteAt(f.zeros[:n], at); err != nil {
				// Not written ahead: the write goes on as a plain append.
				to = at
				break
			}
			at += n
		}
		f.zeroed = max(end, to)
	}
	n, err := f.File.Write(p)
	f.off += int64(n)
	return n, err
}
