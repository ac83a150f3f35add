/// A parsed JSON document read by hand, for hot paths where `Decodable`'s containers cost more than the parse
/// itself (apns-sender reads a 1,000-target push job per fan-out step: `PushJobDecoder`).
///
/// The same strict parse as `FastJSONDecoder.decode` (RFC 8259, duplicate keys rejected); values are then read
/// from the tape without building dictionaries or containers. Values keep the document alive (they hold its
/// tape), so none can outlive the bytes it points into. Not `Sendable`: read on the thread that parsed it.
public struct FastJSONDocument {
    let tape: JSONTape

    /// The document's top-level value.
    public var root: FastJSONValue { FastJSONValue(tape: tape, index: 0) }
}

extension FastJSONDecoder {
    /// Parses `bytes` into a document to read by hand.
    /// - Throws: `FastJSONError` with the byte offset of the first problem.
    public func document(_ bytes: [UInt8]) throws(FastJSONError) -> FastJSONDocument {
        let tape = try bytes.withUnsafeBufferPointer { buffer throws(FastJSONError) in
            try TapeParser.parse(buffer, maximumDepth: maximumDepth)
        }
        return FastJSONDocument(tape: tape)
    }
}

/// The JSON type of a `FastJSONValue`.
public enum FastJSONKind: Sendable {
    case null, bool, number, string, array, object
}

/// One value of a `FastJSONDocument`. Accessors answer nil when the value is not of the asked type (or a number
/// does not fit), so a caller can fall back to `Decodable` for its error message; they never throw or trap.
public struct FastJSONValue {
    let tape: JSONTape
    let index: Int

    @inline(__always) private var entry: TapeEntry { tape.view.entries[index] }

    public var kind: FastJSONKind {
        switch entry.kind {
        case .null: .null
        case .true, .false: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public var isNull: Bool { entry.kind == .null }

    /// An object's member named `key` (ASCII), or nil when this is not an object or has no such member. Keys are
    /// matched by bytes, like `Decodable` through `FastJSONDecoder` (an object with escaped or non-ASCII keys by
    /// decoded text). Looking members up in document order costs one hash and one comparison each.
    public subscript(key: StaticString) -> FastJSONValue? {
        precondition(key.hasPointerRepresentation && key.isASCII, "FastJSONValue keys are ASCII literals")
        let view = tape.view
        let object = entry
        guard object.kind == .object, object.count > 0 else { return nil }
        let size = Int(object.count)
        let members = view.members + Int(object.start)
        let start = key.utf8Start
        let length = key.utf8CodeUnitCount
        let position: Int?
        if object.flags & TapeEntry.complexKeys != 0 {
            let name = String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
            position = (0..<size).first { view.string(Int(members[$0])) == name }
        } else {
            let tag = UInt32(truncatingIfNeeded: KeyTables.hash(start, length))
            func matches(_ candidate: Int) -> Bool {
                let keyEntry = view.entries[Int(members[candidate])]
                return keyEntry.count == tag && Int(keyEntry.end) == length
                    && KeyTables.equal(view.base + Int(keyEntry.start), start, length)
            }
            let hint = Int(object.hint)
            position = hint < size && matches(hint) ? hint : (0..<size).first(where: matches)
        }
        guard let position else { return nil }
        view.entries[index].hint = UInt32(position + 1)
        return FastJSONValue(tape: tape, index: Int(members[position]) + 1)
    }

    /// The number of an array's elements or an object's members; 0 for anything else.
    public var count: Int {
        let entry = entry
        return entry.kind == .array || entry.kind == .object ? Int(entry.count) : 0
    }

    /// An array's elements in order (none when this is not an array).
    public var elements: Elements { Elements(tape: tape, position: index + 1, remaining: entry.kind == .array ? Int(entry.count) : 0) }

    /// The elements of an array, each a `FastJSONValue`.
    public struct Elements: Sequence, IteratorProtocol {
        let tape: JSONTape
        var position: Int
        var remaining: Int

        public mutating func next() -> FastJSONValue? {
            guard remaining > 0 else { return nil }
            let value = FastJSONValue(tape: tape, index: position)
            position = tape.view.skip(position)
            remaining -= 1
            return value
        }

        public var underestimatedCount: Int { remaining }
    }

    /// A string's decoded text, or nil.
    public var string: String? { entry.kind == .string ? tape.view.string(index) : nil }

    /// Whether this is a string whose text is exactly `literal` (compared by bytes, without making a String).
    public func isString(_ literal: StaticString) -> Bool {
        let entry = entry
        guard entry.kind == .string else { return false }
        if entry.flags & TapeEntry.escaped != 0 { return string == literal.description }
        let length = literal.utf8CodeUnitCount
        return Int(entry.end) == length && KeyTables.equal(tape.view.base + Int(entry.start), literal.utf8Start, length)
    }

    /// A number as `T` when it is exactly representable (1.0 and 1e2 are integers, 1.5 is not), like `Decodable`.
    public func integer<T: FixedWidthInteger>(_ type: T.Type = T.self) -> T? {
        let entry = entry
        guard entry.kind == .number else { return nil }
        return NumberParsing.integer(tape.view.span(index), integral: entry.flags & TapeEntry.integral != 0,
                                     negative: entry.flags & TapeEntry.negative != 0, as: T.self)
    }

    /// A number as a `Double`, or nil.
    public var double: Double? { entry.kind == .number ? NumberParsing.double(tape.view.span(index)) : nil }

    /// A boolean, or nil.
    public var bool: Bool? {
        switch entry.kind {
        case .true: true
        case .false: false
        default: nil
        }
    }
}
