/// Parses JSON bytes into a `JSONTape` in one pass, without recursion (nesting is bounded by `maximumDepth`).
///
/// Strict RFC 8259: no trailing commas, no comments, no NaN/Infinity, no leading zeros, no control characters
/// in strings, valid UTF-8, valid escapes (surrogates paired). A UTF-8 byte-order mark is skipped (as
/// JSONDecoder does). Duplicate keys in one object are rejected.
struct TapeParser {
    private let base: UnsafePointer<UInt8>
    private let length: Int
    private let maximumDepth: Int
    private var position = 0
    private var entries: UnsafeMutablePointer<TapeEntry>
    private var count = 0
    private var capacity: Int
    private var stack: UnsafeMutablePointer<UInt32>
    private var members: UnsafeMutablePointer<UInt32>
    private var memberCount = 0
    private var memberCapacity: Int
    private var keys = KeyTables()
    private var complexObjects: [Int] = []

    /// Parses `input` (copied into the tape).
    static func parse(_ input: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(FastJSONError) -> JSONTape {
        guard input.count < Int(UInt32.max - 2) else { throw FastJSONError(.tooLarge, at: 0) }
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, input.count))
        if let source = input.baseAddress, !input.isEmpty {
            bytes.baseAddress!.update(from: source, count: input.count)
        }
        var parser = TapeParser(base: UnsafePointer(bytes.baseAddress!), length: input.count, maximumDepth: maximumDepth)
        defer { parser.stack.deallocate(); parser.keys.deallocate() }
        do {
            try parser.run()
        } catch {
            parser.entries.deallocate()
            parser.members.deallocate()
            bytes.deallocate()
            throw error
        }
        let tape = JSONTape(bytes: bytes, entries: parser.entries, members: parser.members, count: parser.count)
        for object in parser.complexObjects { try Self.checkComplexKeys(of: object, in: tape) }
        return tape
    }

    private init(base: UnsafePointer<UInt8>, length: Int, maximumDepth: Int) {
        self.base = base
        self.length = length
        self.maximumDepth = max(1, maximumDepth)
        self.capacity = max(16, length / 6)
        self.entries = .allocate(capacity: capacity)
        self.memberCapacity = max(16, length / 16)
        self.members = .allocate(capacity: memberCapacity)
        self.stack = .allocate(capacity: self.maximumDepth)
    }

    private mutating func run() throws(FastJSONError) {
        if length >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { position = 3 }
        var depth = 0
        valueLoop: while true {
            skipWhitespace()
            guard position < length else { throw FastJSONError(.unexpectedEnd, at: position) }
            let parent = depth == 0 ? TapeEntry.noParent : stack[depth - 1]
            if depth > 0 { entries[Int(parent)].count &+= 1 }
            let byte = base[position]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maximumDepth else { throw FastJSONError(.tooDeep(limit: maximumDepth), at: position) }
                let isObject = byte == UInt8(ascii: "{")
                let index = append(isObject ? .object : .array, start: position, end: 0, parent: parent, flags: 0)
                stack[depth] = UInt32(index)
                depth += 1
                position += 1
                skipWhitespace()
                guard position < length else { throw FastJSONError(.unexpectedEnd, at: position) }
                if base[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    entries[index].end = UInt32(count)
                    if isObject { entries[index].start = UInt32(memberCount) }
                    depth -= 1
                } else {
                    if isObject {
                        keys.open(depth: depth)
                        try parseKey(object: index, depth: depth)
                    }
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                _ = try parseString(parent: parent)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try parseNumber(parent: parent)
            case UInt8(ascii: "t"):
                try literal(0x65757274, 4, .true, parent)  // "true"
            case UInt8(ascii: "f"):
                try literal(0x736C6166, 5, .false, parent)  // "fals" + "e"
            case UInt8(ascii: "n"):
                try literal(0x6C6C756E, 4, .null, parent)  // "null"
            default:
                throw FastJSONError(.unexpectedByte(byte), at: position)
            }
            // A value is complete: close containers and find the next value.
            while true {
                skipWhitespace()
                if depth == 0 {
                    guard position == length else { throw FastJSONError(.trailingData, at: position) }
                    break valueLoop
                }
                guard position < length else { throw FastJSONError(.unexpectedEnd, at: position) }
                let container = Int(stack[depth - 1])
                let isObject = entries[container].kind == .object
                let next = base[position]
                if next == UInt8(ascii: ",") {
                    position += 1
                    if isObject {
                        skipWhitespace()
                        try parseKey(object: container, depth: depth)
                    }
                    continue valueLoop
                }
                guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw FastJSONError(.unexpectedByte(next), at: position)
                }
                position += 1
                entries[container].end = UInt32(count)
                if isObject { recordMembers(of: container) }
                depth -= 1
            }
        }
        _ = append(.null, start: length, end: 0, parent: TapeEntry.noParent, flags: 0)
    }

    @inline(__always)
    private mutating func append(_ kind: TapeKind, start: Int, end: Int, parent: UInt32, flags: UInt8) -> Int {
        if count == capacity { grow() }
        entries[count] = TapeEntry(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: end),
                                   parent: parent, count: 0, hint: 0, kind: kind, flags: flags)
        count += 1
        return count - 1
    }

    /// Appends the key indices of the just-closed `object` to `members`.
    private mutating func recordMembers(of object: Int) {
        let size = Int(entries[object].count)
        if memberCount + size > memberCapacity {
            let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: max(memberCapacity * 2, memberCount + size))
            bigger.moveInitialize(from: members, count: memberCount)
            members.deallocate()
            members = bigger
            memberCapacity = max(memberCapacity * 2, memberCount + size)
        }
        entries[object].start = UInt32(memberCount)
        var key = object + 1
        for _ in 0..<size {
            members[memberCount] = UInt32(key)
            memberCount += 1
            let value = key + 1
            key = entries[value].kind.rawValue >= TapeKind.array.rawValue ? Int(entries[value].end) : value + 1
        }
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<TapeEntry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: entries, count: count)
        entries.deallocate()
        entries = bigger
        capacity *= 2
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < length {
            let byte = base[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    private mutating func literal(_ head: UInt32, _ size: Int, _ kind: TapeKind, _ parent: UInt32) throws(FastJSONError) {
        guard position + size <= length else { throw FastJSONError(.unexpectedEnd, at: length) }
        let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self)
        guard UInt32(littleEndian: word) == head, size == 4 || base[position + 4] == UInt8(ascii: "e") else {
            throw FastJSONError(.unexpectedByte(base[position]), at: position)
        }
        _ = append(kind, start: position, end: size, parent: parent, flags: 0)
        position += size
    }

    /// Parses an object key at `position` (which must be a quote), checks it is unique, and eats the colon.
    private mutating func parseKey(object: Int, depth: Int) throws(FastJSONError) {
        guard position < length else { throw FastJSONError(.unexpectedEnd, at: position) }
        guard base[position] == UInt8(ascii: "\"") else { throw FastJSONError(.unexpectedByte(base[position]), at: position) }
        let keyStart = position
        let key = try parseString(parent: UInt32(object))
        let entry = entries[key]
        if entry.flags != 0 && entries[object].flags & TapeEntry.complexKeys == 0 {
            entries[object].flags |= TapeEntry.complexKeys
            complexObjects.append(object)
        }
        let hash = KeyTables.hash(base + Int(entry.start), Int(entry.end))
        entries[key].count = UInt32(truncatingIfNeeded: hash)
        if !keys.insert(key: key, hash: hash, depth: depth, object: object, entries: entries, base: base) {
            let text = String(decoding: UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end)),
                              as: UTF8.self)
            throw FastJSONError(.duplicateKey(text), at: keyStart)
        }
        skipWhitespace()
        guard position < length else { throw FastJSONError(.unexpectedEnd, at: position) }
        guard base[position] == UInt8(ascii: ":") else { throw FastJSONError(.unexpectedByte(base[position]), at: position) }
        position += 1
    }

    /// Parses the string whose opening quote is at `position`; validates escapes and UTF-8.
    private mutating func parseString(parent: UInt32) throws(FastJSONError) -> Int {
        let start = position + 1
        var index = start
        var flags: UInt8 = 0
        while true {
            // Eight plain ASCII bytes at a time.
            while index + 8 <= length {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22)
                let slash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | (word &- ones &* 0x20) | word
                let flagged = special & highs
                if flagged != 0 {
                    index += flagged.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < length else { throw FastJSONError(.unexpectedEnd, at: length) }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                flags |= TapeEntry.escaped
                index = try validateEscape(at: index)
            } else if byte < 0x20 {
                throw FastJSONError(.controlCharacterInString, at: index)
            } else if byte >= 0x80 {
                flags |= TapeEntry.nonASCII
                index = try validateUTF8(at: index)
            } else {
                index += 1
            }
        }
        position = index + 1
        return append(.string, start: start, end: index - start, parent: parent, flags: flags)
    }

    private func hexValue(at index: Int) throws(FastJSONError) -> UInt32 {
        guard index + 4 <= length else { throw FastJSONError(.unexpectedEnd, at: length) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = base[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw FastJSONError(.invalidUnicodeEscape, at: index + offset)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Validates the escape whose backslash is at `index`; returns the index after it.
    private func validateEscape(at index: Int) throws(FastJSONError) -> Int {
        guard index + 1 < length else { throw FastJSONError(.unexpectedEnd, at: length) }
        switch base[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try hexValue(at: index + 2)
            if unit >= 0xDC00 && unit <= 0xDFFF { throw FastJSONError(.invalidUnicodeEscape, at: index) }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return index + 6 }
            guard index + 7 < length, base[index + 6] == UInt8(ascii: "\\"), base[index + 7] == UInt8(ascii: "u") else {
                throw FastJSONError(.invalidUnicodeEscape, at: index)
            }
            let low = try hexValue(at: index + 8)
            guard low >= 0xDC00 && low <= 0xDFFF else { throw FastJSONError(.invalidUnicodeEscape, at: index + 6) }
            return index + 12
        default:
            throw FastJSONError(.invalidEscape, at: index)
        }
    }

    /// Validates the multi-byte UTF-8 sequence starting at `index`; returns the index after it.
    private func validateUTF8(at index: Int) throws(FastJSONError) -> Int {
        let lead = base[index]
        let size: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: size = 2
        case 0xE0: size = 3; low = 0xA0
        case 0xED: size = 3; high = 0x9F
        case 0xE1...0xEF: size = 3
        case 0xF0: size = 4; low = 0x90
        case 0xF4: size = 4; high = 0x8F
        case 0xF1...0xF3: size = 4
        default: throw FastJSONError(.invalidUTF8, at: index)
        }
        guard index + size <= length else { throw FastJSONError(.invalidUTF8, at: index) }
        let second = base[index + 1]
        guard second >= low && second <= high else { throw FastJSONError(.invalidUTF8, at: index) }
        for offset in 2..<max(2, size) where base[index + offset] & 0xC0 != 0x80 {
            throw FastJSONError(.invalidUTF8, at: index)
        }
        return index + size
    }

    private mutating func parseNumber(parent: UInt32) throws(FastJSONError) {
        let start = position
        var index = position
        var flags = TapeEntry.integral
        @inline(__always) func isDigit(_ at: Int) -> Bool {
            at < length && base[at] &- UInt8(ascii: "0") < 10
        }
        if base[index] == UInt8(ascii: "-") { flags |= TapeEntry.negative; index += 1 }
        guard isDigit(index) else { throw FastJSONError(.invalidNumber, at: index) }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < length && base[index] == UInt8(ascii: ".") {
            flags &= ~TapeEntry.integral
            index += 1
            guard isDigit(index) else { throw FastJSONError(.invalidNumber, at: index) }
            while isDigit(index) { index += 1 }
        }
        if index < length && (base[index] | 0x20) == UInt8(ascii: "e") {
            flags &= ~TapeEntry.integral
            index += 1
            if index < length && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else { throw FastJSONError(.invalidNumber, at: index) }
            while isDigit(index) { index += 1 }
        }
        _ = append(.number, start: start, end: index - start, parent: parent, flags: flags)
        position = index
    }

    /// Objects with escaped or non-ASCII keys: compare decoded keys (String equality, as JSONDecoder does).
    private static func checkComplexKeys(of object: Int, in owner: JSONTape) throws(FastJSONError) {
        var seen = Set<String>()
        let tape = owner.view
        var key = object + 1
        let end = Int(tape.entries[object].end)
        while key < end {
            let text = tape.string(key)
            if !seen.insert(text).inserted {
                throw FastJSONError(.duplicateKey(text), at: Int(tape.entries[key].start) - 1)
            }
            key = tape.skip(key + 1)
        }
    }
}
