/// A coding key built from JSON: an object key by name or an array position ("Index 3", like JSONDecoder).
public struct FastJSONKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int?

    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    public init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    /// The key of array element `index`.
    public init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    /// The key JSONDecoder uses for `superDecoder()`.
    static let `super` = FastJSONKey(stringValue: "super")
}
