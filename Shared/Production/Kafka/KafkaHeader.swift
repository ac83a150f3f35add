/// One message header. Keys may repeat; order is kept.
public struct KafkaHeader: Sendable, Hashable {
    public let key: String
    /// Header bytes; nil is a header with a null value.
    public let value: [UInt8]?

    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is the UTF-8 bytes of `value`.
    public init(key: String, value: String) {
        self.init(key: key, value: Array(value.utf8))
    }
}
