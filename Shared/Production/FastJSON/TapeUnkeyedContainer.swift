/// An unkeyed container over one array of the tape. An element that fails to decode is not consumed.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let array: Int
    /// Tape index of the next element.
    private var element: Int
    private(set) var currentIndex = 0

    init(decoder: TapeDecoder, array: Int) {
        self.decoder = decoder
        self.array = array
        self.element = array + 1
    }

    var codingPath: [any CodingKey] { decoder.path(of: array) }
    var count: Int? { Int(decoder.view.entries[array].count) }
    var isAtEnd: Bool { currentIndex >= Int(decoder.view.entries[array].count) }

    /// Decodes the next element with `body` and moves past it only when that succeeded.
    @inline(__always)
    private mutating func next<T>(_ body: (Int) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: codingPath + [FastJSONKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        let value = try body(element)
        element = decoder.view.skip(element)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, DecodingError.Context(
                codingPath: codingPath + [FastJSONKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard decoder.view.kind(element) == .null else { return false }
        element += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try next { [decoder] in try decoder.view.decodeInteger(Int.self, at: $0) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { [decoder] in try decoder.view.decodeInteger(Int8.self, at: $0) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { [decoder] in try decoder.view.decodeInteger(Int16.self, at: $0) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { [decoder] in try decoder.view.decodeInteger(Int32.self, at: $0) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { [decoder] in try decoder.view.decodeInteger(Int64.self, at: $0) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { [decoder] in try decoder.view.decodeInteger(UInt.self, at: $0) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { [decoder] in try decoder.view.decodeInteger(UInt8.self, at: $0) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { [decoder] in try decoder.view.decodeInteger(UInt16.self, at: $0) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { [decoder] in try decoder.view.decodeInteger(UInt32.self, at: $0) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { [decoder] in try decoder.view.decodeInteger(UInt64.self, at: $0) } }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { [decoder] in try decoder.view.decodeBool(at: $0) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { [decoder] in try decoder.view.decodeString(at: $0) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { [decoder] in try decoder.view.decodeDouble(at: $0) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { [decoder] in try decoder.view.decodeFloat(at: $0) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let position = currentIndex
        return try next { [decoder] in try decoder.decodeElement(T.self, at: $0, position: position) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next { [decoder] in try decoder.keyedContainer(NestedKey.self, at: $0) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { [decoder] in try decoder.unkeyedContainer(at: $0) }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next { [decoder] in TapeDecoder(tape: decoder.tape, index: $0, userInfo: decoder.userInfo) }
    }
}
