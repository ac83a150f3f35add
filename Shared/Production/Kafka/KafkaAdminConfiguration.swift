/// Settings for a ``KafkaAdmin`` client.
public struct KafkaAdminConfiguration: Sendable {
    /// Comma-separated `host:port` list, e.g. `127.0.0.1:19092`.
    public var bootstrapServers: String
    /// Client id shown in broker logs and metrics.
    public var clientId: String
    /// Raw librdkafka properties applied last.
    public var additional: [String: String] = [:]

    public init(bootstrapServers: String, clientId: String = "sightscreen-admin") {
        self.bootstrapServers = bootstrapServers
        self.clientId = clientId
    }

    /// The librdkafka properties this configuration stands for.
    var librdkafkaProperties: [String: String] {
        var properties = ["bootstrap.servers": bootstrapServers, "client.id": clientId]
        properties.merge(additional) { _, new in new }
        return properties
    }
}
