/// A parsed document: an owned copy of the input bytes and the tape of its values.
///
/// Owns the buffers and frees them in `deinit`; the pointers never leave the module's internals. Reading goes
/// through `view`, a trivial struct of the same pointers, valid while this tape is alive. Not `Sendable`: a
/// tape is made and read by one decode call on one thread.
final class JSONTape {
    let bytes: UnsafeMutableBufferPointer<UInt8>
    let view: TapeView

    init(bytes: UnsafeMutableBufferPointer<UInt8>, entries: UnsafeMutablePointer<TapeEntry>,
         members: UnsafeMutablePointer<UInt32>, count: Int) {
        self.bytes = bytes
        self.view = TapeView(entries: entries, members: members, base: UnsafePointer(bytes.baseAddress!), count: count)
    }

    deinit {
        bytes.deallocate()
        view.entries.deallocate()
        view.members.deallocate()
    }
}

/// Read access to a tape: plain pointers, so copying it never touches reference counts. Only valid while
/// the owning `JSONTape` is alive (the decoder that holds the tape outlives every container it hands out
/// during `FastJSONDecoder.decode`).
struct TapeView {
    let entries: UnsafeMutablePointer<TapeEntry>
    /// The tape indices of every object's keys, object by object (see `TapeEntry.start`).
    let members: UnsafeMutablePointer<UInt32>
    let base: UnsafePointer<UInt8>
    /// Number of entries; the root is entry 0 and a synthetic `null` (for absent super decoders) is the last.
    let count: Int

    /// Index of the synthetic null entry.
    var nullIndex: Int { count - 1 }

    @inline(__always) func kind(_ index: Int) -> TapeKind { entries[index].kind }

    /// The index just past `index` and its descendants.
    @inline(__always) func skip(_ index: Int) -> Int {
        let entry = entries[index]
        return entry.kind.rawValue >= TapeKind.array.rawValue ? Int(entry.end) : index + 1
    }

    /// The raw bytes of a string or number entry.
    @inline(__always) func span(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let entry = entries[index]
        return UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end))
    }

    /// The byte offset where the value at `index` begins (for an object, its first key's opening quote), or nil
    /// for an empty object (whose offset the tape does not keep).
    @inline(__always) func byteStart(_ index: Int) -> Int? {
        let entry = entries[index]
        switch entry.kind {
        case .string: return Int(entry.start) - 1
        case .object: return entry.count > 0 ? Int(entries[index + 1].start) - 1 : nil
        default: return Int(entry.start)
        }
    }

    /// The bytes from the start of the value at `index` to the start of whatever the tape holds next: the
    /// value's whole text plus the separators after it. Two values whose ranges hold the same bytes are the
    /// same JSON. Nil when a bound is an empty object.
    @inline(__always) func textRange(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let start = byteStart(index), let end = byteStart(skip(index)) else { return nil }
        return UnsafeBufferPointer(start: base + start, count: end - start)
    }

    /// The decoded text of a string entry (validated while parsing, so this cannot fail).
    func string(_ index: Int) -> String {
        let raw = span(index)
        if entries[index].flags & TapeEntry.escaped == 0 { return String(decoding: raw, as: UTF8.self) }
        return StringUnescaping.unescape(raw)
    }

    /// The path from the root to `index`, as JSONDecoder reports it (keys by name, elements by position).
    func codingPath(of index: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var child = index
        var parent = entries[child].parent
        while parent != TapeEntry.noParent {
            let container = Int(parent)
            if entries[container].kind == .object {
                path.append(FastJSONKey(stringValue: string(child - 1)))
            } else {
                var position = 0
                var cursor = container + 1
                while cursor < child { cursor = skip(cursor); position += 1 }
                path.append(FastJSONKey(index: position))
            }
            child = container
            parent = entries[child].parent
        }
        return path.reversed()
    }

    // MARK: Scalars

    func decodeString(at index: Int) throws -> String {
        guard kind(index) == .string else { throw mismatch(String.self, at: index) }
        return string(index)
    }

    func decodeBool(at index: Int) throws -> Bool {
        switch kind(index) {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, at: index)
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let entry = entries[index]
        guard entry.kind == .number else { throw mismatch(T.self, at: index) }
        guard let value = NumberParsing.integer(span(index), integral: entry.flags & TapeEntry.integral != 0,
                                                negative: entry.flags & TapeEntry.negative != 0, as: T.self) else {
            throw numberDoesNotFit(T.self, at: index)
        }
        return value
    }

    func decodeDouble(at index: Int) throws -> Double {
        guard kind(index) == .number else { throw mismatch(Double.self, at: index) }
        guard let value = NumberParsing.double(span(index)) else { throw numberDoesNotFit(Double.self, at: index) }
        return value
    }

    func decodeFloat(at index: Int) throws -> Float {
        guard kind(index) == .number else { throw mismatch(Float.self, at: index) }
        guard let value = NumberParsing.float(span(index)) else { throw numberDoesNotFit(Float.self, at: index) }
        return value
    }

    // MARK: Errors (worded like JSONDecoder's)

    /// `valueNotFound` for null, else `typeMismatch`, at the path of `index` (or `path` when given).
    func mismatch(_ type: Any.Type, at index: Int, path: [any CodingKey]? = nil) -> DecodingError {
        let path = path ?? codingPath(of: index)
        if kind(index) == .null {
            return DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return typeMismatch(type, at: index, path: path)
    }

    func typeMismatch(_ type: Any.Type, at index: Int, path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(kind(index).foundDescription) instead."))
    }

    func numberDoesNotFit(_ type: Any.Type, at index: Int) -> DecodingError {
        let text = String(decoding: span(index), as: UTF8.self)
        return DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: codingPath(of: index), debugDescription: "Number <\(text)> does not fit in \(type)."))
    }
}
