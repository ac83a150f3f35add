/// A keyed container over one object of the tape.
///
/// Lookups usually cost one hash and one comparison (see `find`). Keys are compared by bytes; objects with
/// escaped or non-ASCII keys by decoded `String` (canonical equivalence, like JSONDecoder's dictionary lookup).
///
/// A trivial struct (pointers and integers, no references): the standard library's type-erasing box copies
/// its container on every call, and copying a reference would cost a retain and a release each time. The
/// decoder is held unretained; it outlives its containers because `FastJSONDecoder.decode` holds it for the
/// whole decode (containers must not escape `init(from:)`, as with any `Decoder`).
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let unmanagedDecoder: Unmanaged<TapeDecoder>
    private let view: TapeView
    private let cache: UnsafeMutablePointer<UInt32>
    let object: Int

    init(decoder: TapeDecoder, object: Int) {
        self.unmanagedDecoder = Unmanaged.passUnretained(decoder)
        self.view = decoder.view
        self.cache = decoder.cache
        self.object = object
    }

    /// The decoder, without a retain for the duration of `body`.
    @inline(__always)
    private func withDecoder<T>(_ body: (TapeDecoder) throws -> T) rethrows -> T {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }

    var codingPath: [any CodingKey] { withDecoder { $0.path(of: object) } }

    var allKeys: [Key] {
        let tape = view
        var keys: [Key] = []
        keys.reserveCapacity(Int(tape.entries[object].count))
        var key = object + 1
        let end = Int(tape.entries[object].end)
        while key < end {
            if let typed = Key(stringValue: tape.string(key)) { keys.append(typed) }
            key = tape.skip(key + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    /// Tape index of the value of `key`, or nil when the object has no such key.
    ///
    /// Tries, in order: the member after the last one found (documents in declaration order), the position
    /// where this key type's key was found in the previous object (same-shaped objects, e.g. sorted keys),
    /// then every member. Candidates are filtered by the key hash stored on the tape before comparing bytes.
    func find(_ key: Key) -> Int? {
        let tape = view
        let entries = tape.entries
        let entry = entries[object]
        let size = Int(entry.count)
        guard size > 0 else { return nil }
        if entry.flags & TapeEntry.complexKeys != 0 { return findByString(key.stringValue) }
        let members = tape.members + Int(entry.start)
        let base = tape.base
        let cache = self.cache
        var name = key.stringValue
        let found: Int? = name.withUTF8 { utf8 in
            let length = utf8.count
            let start = utf8.baseAddress ?? base
            let hash = KeyTables.hash(start, length)
            let tag = UInt32(truncatingIfNeeded: hash)
            @inline(__always) func matches(_ position: Int) -> Bool {
                let keyEntry = entries[Int(members[position])]
                return keyEntry.count == tag && Int(keyEntry.end) == length
                    && KeyTables.equal(base + Int(keyEntry.start), start, length)
            }
            let hint = Int(entry.hint)
            if hint < size && matches(hint) { return hint }
            let typeBits = UInt64(UInt(bitPattern: ObjectIdentifier(Key.self)))
            let slot = Int(truncatingIfNeeded: (hash ^ (typeBits &* 0x9E37_79B9_7F4A_7C15)) >> 40)
                & (TapeDecoder.cacheSize - 1)
            let cached = Int(cache[slot])
            if cached < size && matches(cached) { return cached }
            for position in 0..<size where matches(position) {
                cache[slot] = UInt32(position)
                return position
            }
            return nil
        }
        guard let found else {
            // A non-ASCII key name can equal an ASCII JSON key under canonical equivalence (K vs KELVIN SIGN).
            return name.utf8.allSatisfy({ $0 < 0x80 }) ? nil : findByString(name)
        }
        entries[object].hint = UInt32(found + 1)
        return Int(members[found]) + 1
    }

    /// Slow lookup comparing decoded key strings (objects with escaped or non-ASCII keys).
    private func findByString(_ name: String) -> Int? {
        let tape = view
        let entry = tape.entries[object]
        let members = tape.members + Int(entry.start)
        for position in 0..<Int(entry.count) where tape.string(Int(members[position])) == name {
            return Int(members[position]) + 1
        }
        return nil
    }

    /// The value index of `key`, or `keyNotFound`.
    func valueIndex(_ key: Key) throws -> Int {
        guard let index = find(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    /// The value index of `key` unless it is absent or null.
    @inline(__always)
    func presentIndex(_ key: Key) -> Int? {
        guard let index = find(key), view.kind(index) != .null else { return nil }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool { view.kind(try valueIndex(key)) == .null }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try view.decodeInteger(Int.self, at: valueIndex(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try view.decodeInteger(Int8.self, at: valueIndex(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try view.decodeInteger(Int16.self, at: valueIndex(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try view.decodeInteger(Int32.self, at: valueIndex(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try view.decodeInteger(Int64.self, at: valueIndex(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try view.decodeInteger(UInt.self, at: valueIndex(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try view.decodeInteger(UInt8.self, at: valueIndex(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try view.decodeInteger(UInt16.self, at: valueIndex(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try view.decodeInteger(UInt32.self, at: valueIndex(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try view.decodeInteger(UInt64.self, at: valueIndex(key)) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try view.decodeBool(at: valueIndex(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try view.decodeString(at: valueIndex(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try view.decodeDouble(at: valueIndex(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try view.decodeFloat(at: valueIndex(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try valueIndex(key)
        return try withDecoder { try $0.decode(T.self, at: index) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(Int.self, at: index)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(Int8.self, at: index)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(Int16.self, at: index)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(Int32.self, at: index)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(Int64.self, at: index)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(UInt.self, at: index)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(UInt8.self, at: index)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(UInt16.self, at: index)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(UInt32.self, at: index)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeInteger(UInt64.self, at: index)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeBool(at: index)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeString(at: index)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeDouble(at: index)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let index = presentIndex(key) else { return nil }
        return try view.decodeFloat(at: index)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = presentIndex(key) else { return nil }
        return try withDecoder { try $0.decode(T.self, at: index) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let index = try valueIndex(key)
        return try withDecoder { try $0.keyedContainer(NestedKey.self, at: index) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let index = try valueIndex(key)
        return try withDecoder { try $0.unkeyedContainer(at: index) }
    }

    func superDecoder() throws -> any Decoder { superDecoder(named: FastJSONKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(named: key) }

    private func superDecoder(named key: some CodingKey) -> any Decoder {
        let index = (key as? Key).flatMap(find) ?? Key(stringValue: key.stringValue).flatMap(find)
        let path = index == nil ? codingPath + [key] : nil
        return withDecoder { decoder in
            TapeDecoder(tape: decoder.tape, index: index ?? view.nullIndex, userInfo: decoder.userInfo, pathOverride: path)
        }
    }
}
