/// Duplicate-key detection while parsing: one open-addressing table of key hashes per nesting depth.
///
/// A slot holds `generation << 32 | keyTapeIndex`; each object gets a fresh generation, so tables are reused
/// across objects without clearing. Keys are compared by raw bytes here; objects with escaped or non-ASCII
/// keys are re-checked with decoded strings after parsing (see `TapeParser.checkComplexKeys`).
struct KeyTables {
    private struct Level {
        var slots: UnsafeMutablePointer<UInt64>
        var mask: Int
        var used: Int
        var generation: UInt64
    }

    private var levels: [Level] = []
    private var nextGeneration: UInt64 = 1

    /// Starts a new object at `depth` (1-based).
    mutating func open(depth: Int) {
        while levels.count < depth {
            let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: 64)
            slots.initialize(repeating: 0, count: 64)
            levels.append(Level(slots: slots, mask: 63, used: 0, generation: 0))
        }
        levels[depth - 1].generation = nextGeneration
        levels[depth - 1].used = 0
        nextGeneration &+= 1
    }

    /// Records key entry `key` of `object`; false when the object already has a key with the same bytes.
    mutating func insert(key: Int, hash: UInt64, depth: Int, object: Int, entries: UnsafeMutablePointer<TapeEntry>,
                         base: UnsafePointer<UInt8>) -> Bool {
        if (levels[depth - 1].used + 1) * 2 > levels[depth - 1].mask + 1 {
            rebuild(depth: depth, object: object, before: key, entries: entries, base: base)
        }
        let level = levels[depth - 1]
        let entry = entries[key]
        let start = base + Int(entry.start)
        let size = Int(entry.end)
        let tag = level.generation << 32
        var slot = Int(truncatingIfNeeded: hash) & level.mask
        while true {
            let value = level.slots[slot]
            if value >> 32 != level.generation {
                level.slots[slot] = tag | UInt64(key)
                levels[depth - 1].used += 1
                return true
            }
            let other = entries[Int(truncatingIfNeeded: value & 0xFFFF_FFFF)]
            if Int(other.end) == size && Self.equal(base + Int(other.start), start, size) { return false }
            slot = (slot + 1) & level.mask
        }
    }

    /// Doubles the table at `depth` and re-inserts the object's keys that come before `before`.
    private mutating func rebuild(depth: Int, object: Int, before: Int, entries: UnsafeMutablePointer<TapeEntry>,
                                  base: UnsafePointer<UInt8>) {
        let old = levels[depth - 1]
        let capacity = (old.mask + 1) * 2
        let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        old.slots.deallocate()
        levels[depth - 1] = Level(slots: slots, mask: capacity - 1, used: 0, generation: old.generation)
        var key = object + 1
        while key < before {
            let entry = entries[key]
            _ = insert(key: key, hash: Self.hash(base + Int(entry.start), Int(entry.end)), depth: depth, object: object,
                       entries: entries, base: base)
            let value = key + 1
            key = entries[value].kind.rawValue >= TapeKind.array.rawValue ? Int(entries[value].end) : value + 1
        }
    }

    mutating func deallocate() {
        for level in levels { level.slots.deallocate() }
        levels = []
    }

    @inline(__always)
    static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    @inline(__always)
    static func hash(_ start: UnsafePointer<UInt8>, _ size: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: size) &* 0x9E37_79B9_7F4A_7C15
        if size >= 8 {
            hash = (hash ^ load(start)) &* 0xBF58_476D_1CE4_E5B9
            hash = (hash ^ load(start + size - 8)) &* 0x94D0_49BB_1331_11EB
            if size > 16 { hash = (hash ^ load(start + size / 2 - 4)) &* 0xBF58_476D_1CE4_E5B9 }
        } else {
            for offset in 0..<size { hash = (hash ^ UInt64(start[offset])) &* 0x0000_0100_0000_01B3 }
        }
        return hash ^ (hash >> 29)
    }

    /// Byte equality of two ranges of `size` bytes.
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ size: Int) -> Bool {
        var offset = 0
        while offset + 8 <= size {
            if load(a + offset) != load(b + offset) { return false }
            offset += 8
        }
        while offset < size {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }
}
