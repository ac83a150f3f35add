/// One value (or object key) of a parsed document, in document order.
///
/// Containers are followed by their descendants; an object's children alternate key, value. `end` of a
/// container is the tape index just past its last descendant, so a value is skipped in O(1).
struct TapeEntry {
    /// Byte offset of the token: the first byte after the opening quote for strings, else the first byte.
    /// Objects instead: where the object's member list starts in `JSONTape.members`.
    var start: UInt32
    /// Strings and numbers: byte length (strings without quotes). Containers: index past the last descendant.
    var end: UInt32
    /// Tape index of the enclosing array or object; `TapeEntry.noParent` for the root.
    var parent: UInt32
    /// Containers: number of elements (arrays) or members (objects). Object keys: their hash (`KeyTables.hash`).
    var count: UInt32
    /// Objects: position (0-based) of the member to try first in the next lookup (the one after the last found).
    var hint: UInt32
    var kind: TapeKind
    var flags: UInt8

    static let noParent = UInt32.max

    // String flags.
    static let escaped: UInt8 = 1
    static let nonASCII: UInt8 = 2
    // Number flags.
    static let integral: UInt8 = 1
    static let negative: UInt8 = 2
    // Object flags.
    static let complexKeys: UInt8 = 1
}

/// The JSON type of a tape entry.
enum TapeKind: UInt8 {
    case null, `true`, `false`, number, string, array, object

    /// The words JSONDecoder uses in its type-mismatch messages.
    var foundDescription: String {
        switch self {
        case .null: "null"
        case .true, .false: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
