/// An HTTP request method such as `GET` or `POST`.
///
/// A struct rather than an enum so that unusual methods sent by clients can still be represented
/// (the router answers them with 405).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent on the wire (upper case for the standard methods).
    public let rawValue: String

    /// Wraps a method token; the token is used as given (HTTP methods are case-sensitive).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }
}
