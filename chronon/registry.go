package chronon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/schema"
)

// The registry holds every format and named category of the process. Formats
// are registered once, usually at package init, before any Tracer exists, so
// it is global like the original's FormatRegistry; every Tracer writes all of
// it into its schema. Readers on the hot path (compression workers asking
// whether a format has string arguments) take a snapshot without locking.
var registry struct {
	mu         sync.Mutex
	formats    atomic.Pointer[[]*format] // index id-1; copy-on-write
	byKey      map[string]*format        // identity (formatKey) -> the format registered first
	categories []schema.Category
	gen        atomic.Uint64 // bumped on every registration: a schema rewrite is due
}

// maxFormats bounds the registry: ids are uint32 in the file, but a process
// registering millions of formats has a bug (formats are not messages).
const maxFormats = 1 << 20

func registerFormat(f *format) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	key := formatKey(&f.info)
	if e := registry.byKey[key]; e != nil {
		// The same registration again (a package registering its formats
		// once per simulation it builds, say): the same format, not a
		// second id for one meaning. The schema keeps the first one's
		// source location.
		f.id, f.idCat = e.id, e.idCat
		f.info.ID, f.info.File, f.info.Line = e.info.ID, e.info.File, e.info.Line
		return nil
	}
	var old []*format
	if p := registry.formats.Load(); p != nil {
		old = *p
	}
	if len(old) >= maxFormats {
		return fmt.Errorf("chronon: more than %d formats registered", maxFormats)
	}
	next := make([]*format, len(old), len(old)+1)
	copy(next, old)
	f.id = uint32(len(old) + 1)
	// Before the store publishes f: a running tracer's writer reads f.info
	// (schemaSnapshot) as soon as the registry holds f.
	f.info.ID = f.id
	f.idCat = uint64(f.id) | uint64(uint32(f.category))<<32
	next = append(next, f)
	registry.formats.Store(&next)
	if registry.byKey == nil {
		registry.byKey = map[string]*format{}
	}
	registry.byKey[key] = f
	registry.gen.Add(1)
	return nil
}

// formatKey is what makes two registrations the same format: its text,
// argument types, kind, roles, category mask, display name and log level.
// The source location is not part of it (a helper registering on behalf
// of its callers registers from one place, a program from several).
func formatKey(f *schema.Format) string {
	b := make([]byte, 0, len(f.Format)+len(f.Name)+2*len(f.ArgTypes)+24)
	b = binary.AppendUvarint(b, uint64(len(f.Format)))
	b = append(b, f.Format...)
	b = binary.AppendUvarint(b, uint64(len(f.Name)))
	b = append(b, f.Name...)
	b = binary.AppendUvarint(b, uint64(len(f.ArgTypes)))
	for i, t := range f.ArgTypes {
		b = append(b, byte(t), byte(f.Role(i)))
	}
	b = append(b, byte(f.Kind), f.LogLevel)
	if f.IsLog {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return string(binary.LittleEndian.AppendUint64(b, f.Category))
}

// formatsSnapshot returns the registered formats, index id-1. The slice is
// never modified after it is published.
func formatsSnapshot() []*format {
	if p := registry.formats.Load(); p != nil {
		return *p
	}
	return nil
}

// RegisterCategory names the next free category bit and returns its mask.
// Categories name the bits of a format's category mask in the file's schema;
// masks may also be used without registering a name. The bit of
// CategoryDefault is never handed out: every format registered without
// WithCategory is in it, so a registered category sharing it could not be
// masked off without masking those formats too. 63 bits remain.
func RegisterCategory(name, description string) (uint64, error) {
	if name == "" {
		return 0, errors.New("chronon: category name is empty")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	used := CategoryDefault
	for _, c := range registry.categories {
		if c.Name == name {
			return 0, fmt.Errorf("chronon: category %q already registered", name)
		}
		used |= c.Mask
	}
	if used == ^uint64(0) {
		return 0, errors.New("chronon: all 63 category bits (all but CategoryDefault's) are named")
	}
	mask := uint64(1) << bits.TrailingZeros64(^used)
	registry.categories = append(registry.categories, schema.Category{Name: name, Description: description, Mask: mask})
	registry.gen.Add(1)
	return mask, nil
}

// NameCategory records a name for a mask chosen by the caller (for example a
// bit a simulator already uses). It does not reserve the bits.
func NameCategory(mask uint64, name, description string) error {
	if name == "" || mask == 0 {
		return errors.New("chronon: category needs a name and a non-zero mask")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.categories = append(registry.categories, schema.Category{Name: name, Description: description, Mask: mask})
	registry.gen.Add(1)
	return nil
}

func categoriesSnapshot() []schema.Category {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return append([]schema.Category(nil), registry.categories...)
}
