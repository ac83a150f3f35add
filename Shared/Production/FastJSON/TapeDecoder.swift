/// The `Decoder` over a tape. One instance serves a whole decode: nested values are decoded by pointing
/// `current` at their tape index for the duration of `init(from:)`, so no decoder is allocated per value.
final class TapeDecoder: Decoder {
    /// Keeps the tape (and so every `TapeView` handed to containers) alive.
    let tape: JSONTape
    let view: TapeView
    let userInfo: [CodingUserInfoKey: Any]
    /// Tape index of the value being decoded. A pointer (not a stored `var`) so reads and writes carry no
    /// dynamic exclusivity checks; owned and freed by this instance.
    private let state: UnsafeMutablePointer<Int>
    /// Per key (hash and key type), the member position where it was last found; see `TapeKeyedContainer.find`.
    let cache: UnsafeMutablePointer<UInt32>
    static let cacheSize = 1024
    /// Remembered array elements (`FastJSONReuseCache`), locked by the caller for the whole decode.
    let reuse: UnsafeMutablePointer<ReuseStorage>?
    let maximumSlots: Int
    /// When set, the coding path reported instead of the tape's (super decoders over an absent key).
    private let pathOverride: [any CodingKey]?

    init(tape: JSONTape, index: Int, userInfo: [CodingUserInfoKey: Any], pathOverride: [any CodingKey]? = nil,
         reuse: UnsafeMutablePointer<ReuseStorage>? = nil, maximumSlots: Int = 0) {
        self.tape = tape
        self.reuse = reuse
        self.maximumSlots = maximumSlots
        self.view = tape.view
        self.userInfo = userInfo
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: index)
        self.pathOverride = pathOverride
        self.cache = .allocate(capacity: Self.cacheSize)
        self.cache.initialize(repeating: 0, count: Self.cacheSize)
    }

    deinit {
        state.deallocate()
        cache.deallocate()
    }

    var current: Int { state.pointee }

    var codingPath: [any CodingKey] { path(of: current) }

    func path(of index: Int) -> [any CodingKey] {
        if let pathOverride, index == view.nullIndex { return pathOverride }
        return view.codingPath(of: index)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(Key.self, at: current)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: current)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoder: self, index: current)
    }

    func keyedContainer<Key: CodingKey>(_ type: Key.Type, at index: Int) throws -> KeyedDecodingContainer<Key> {
        let kind = view.kind(index)
        guard kind == .object else {
            if kind == .null {
                throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                    codingPath: path(of: index),
                    debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw view.typeMismatch([String: Any].self, at: index, path: path(of: index))
        }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: index))
    }

    func unkeyedContainer(at index: Int) throws -> any UnkeyedDecodingContainer {
        let kind = view.kind(index)
        guard kind == .array else {
            if kind == .null {
                throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                    codingPath: path(of: index),
                    debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw view.typeMismatch([Any].self, at: index, path: path(of: index))
        }
        return TapeUnkeyedContainer(decoder: self, array: index)
    }

    /// Decodes the value at `index` as `T`.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        if T.self == String.self { return unsafeBitCast(try view.decodeString(at: index), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try view.decodeInteger(Int.self, at: index), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try view.decodeDouble(at: index), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try view.decodeBool(at: index), to: T.self) }
        let saved = state.pointee
        state.pointee = index
        defer { state.pointee = saved }
        return try T(from: self)
    }

    /// Decodes the array element at `index` (position `position` in its array), through the reuse cache when
    /// one is set and `T` is registered in it.
    @inline(__always)
    func decodeElement<T: Decodable>(_ type: T.Type, at index: Int, position: Int) throws -> T {
        guard let reuse, position < maximumSlots, let typeIndex = reuse.pointee.typeIndex(T.self),
              let text = view.textRange(index) else {
            return try decode(T.self, at: index)
        }
        if let value = reuse.pointee.value(T.self, typeIndex: typeIndex, position: position, matching: text) {
            return value
        }
        let value = try decode(T.self, at: index)
        reuse.pointee.remember(value, typeIndex: typeIndex, position: position, bytes: text)
        return value
    }

    /// The error for a value of the wrong type at `index`, with this decoder's path.
    func mismatch(_ type: Any.Type, at index: Int) -> DecodingError {
        view.mismatch(type, at: index, path: path(of: index))
    }
}
