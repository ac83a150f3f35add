/// The one rule for ids that come from outside (users, devices, matches): 1–128 characters of `[A-Za-z0-9._:-]`, and
/// never `.` or `..` (they would name a directory where an id becomes a path). The api checks every id of a path or a
/// body with it, the operator CLI every id it is given.
public enum Identifier {
    public static let maximumLength = 128

    /// True for a valid id.
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard (1...maximumLength).contains(bytes.count), value != ".", value != ".." else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// The rule in words, for error messages.
    public static let rule = "1–\(maximumLength) characters of A-Z a-z 0-9 . _ : - (not . or ..)"
}
