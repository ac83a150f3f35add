/// A configuration property that librdkafka refused; names the key and the value that was given.
public struct KafkaConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The librdkafka property name, e.g. `session.timeout.ms`.
    public let key: String
    /// The value that was passed for `key`.
    public let value: String
    /// librdkafka's explanation.
    public let message: String

    public init(key: String, value: String, message: String) {
        self.key = key
        self.value = value
        self.message = message
    }

    public var description: String {
        "kafka configuration: \(key)=\(value.debugDescription) rejected: \(message)"
    }
}
