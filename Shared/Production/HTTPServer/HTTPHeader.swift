/// One response or request header line.
public struct HTTPHeader: Sendable, Hashable {
    /// Header name as written (lookups compare case-insensitively).
    public var name: String
    /// Header value.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
