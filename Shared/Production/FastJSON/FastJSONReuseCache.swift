#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Runtime

/// Remembers decoded array elements of chosen types between decodes of similar documents, so a document
/// that repeats most of the previous one (a fixture snapshot whose balls only grow) decodes only what changed.
///
/// While decoding with a cache, every element of an array whose type is registered is looked up by (type,
/// position in its array): when the element's JSON text is byte-for-byte the text remembered for that slot,
/// the remembered value is returned without decoding; otherwise the element is decoded and remembered. A hit
/// needs the exact same bytes, and a value decoded by default strategies is a function of its text, so a
/// cached decode returns what an uncached one would; a changed element (a corrected ball) is simply a miss.
///
/// Register only types whose decoding reads nothing but their own JSON (no `userInfo`, no super decoders).
/// Holds at most `maximumSlots` elements per type. One decode at a time holds the cache's lock, so a cache
/// may be shared, but it helps only when it sees successive versions of one document.
public final class FastJSONReuseCache: Sendable {
    /// Elements of each type beyond this position in their array are not remembered.
    public let maximumSlots: Int
    let storage: LockedValue<ReuseStorage>

    /// - Parameter types: the element types to remember (their values are shared between decodes, so
    ///   they must be `Sendable`).
    public init(reusing types: [any (Decodable & Sendable).Type], maximumSlots: Int = 4_096) {
        self.maximumSlots = maximumSlots
        storage = LockedValue(ReuseStorage(types: types.map { ObjectIdentifier($0) }))
    }

    /// Elements returned from the cache, and elements decoded and remembered, since the cache was made.
    public var statistics: (hits: Int, misses: Int) {
        storage.withLock { ($0.hits, $0.misses) }
    }
}

/// The remembered elements. `@unchecked Sendable`: it holds only values of the types registered through
/// `FastJSONReuseCache.init`, which requires them to be `Sendable`, and it is only touched under the lock.
struct ReuseStorage: @unchecked Sendable {
    /// One remembered element: its JSON text and its decoded value (a `ReuseBox` of the slot's type).
    struct Slot {
        var bytes: [UInt8]
        var box: AnyObject
    }

    let types: [ObjectIdentifier]
    /// Per registered type (same order as `types`), the slots by array position.
    var slots: [[Slot?]]
    var hits = 0
    var misses = 0

    init(types: [ObjectIdentifier]) {
        self.types = types
        self.slots = Array(repeating: [], count: types.count)
    }

    /// The index of `type` in `types`, or nil when it is not remembered.
    @inline(__always) func typeIndex(_ type: Any.Type) -> Int? {
        let id = ObjectIdentifier(type)
        for index in types.indices where types[index] == id { return index }
        return nil
    }

    /// The remembered value of slot (`type`, `position`) when its text equals `bytes`.
    mutating func value<T>(_: T.Type, typeIndex: Int, position: Int, matching bytes: UnsafeBufferPointer<UInt8>) -> T? {
        guard position < slots[typeIndex].count, let slot = slots[typeIndex][position],
              slot.bytes.count == bytes.count else { return nil }
        let same = slot.bytes.withUnsafeBufferPointer { remembered in
            memcmp(remembered.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
        guard same else { return nil }
        hits += 1
        // Slots of `typeIndex` only ever hold `ReuseBox<T>` for the one T whose ObjectIdentifier is types[typeIndex]
        // (`remember` is only called with that T), so the unchecked cast is exact; a dynamic cast from `Any`
        // cost more than the rest of a hit.
        return unsafeDowncast(slot.box, to: ReuseBox<T>.self).value
    }

    /// Remembers `value` decoded from `bytes` in slot (`typeIndex`, `position`). `T` must be the type
    /// registered at `typeIndex`.
    mutating func remember<T>(_ value: T, typeIndex: Int, position: Int, bytes: UnsafeBufferPointer<UInt8>) {
        misses += 1
        if position >= slots[typeIndex].count {
            slots[typeIndex].append(contentsOf: repeatElement(nil, count: position + 1 - slots[typeIndex].count))
        }
        slots[typeIndex][position] = Slot(bytes: Array(bytes), box: ReuseBox(value))
    }
}

/// A remembered value on the heap, so a hit costs one unchecked class cast.
final class ReuseBox<T> {
    let value: T
    init(_ value: T) { self.value = value }
}
