/// Settings for a ``KafkaAdmin`` client.
public struct KafkaAdminConfiguration: Sendable {
    /// The brokers and how to reach them (security, pass-through properties).
    public var cluster: KafkaCluster
    /// Comma-separated `host:port` list, e.g. `127.0.0.1:19092`.
    public var bootstrapServers: String { cluster.bootstrapServers }
    /// Client id shown in broker logs and metrics.
    public var clientId: String
    /// Raw librdkafka properties applied last.
    public var additional: [String: String] = [:]

    public init(cluster: KafkaCluster, clientId: String = "sightscreen-admin") {
        self.cluster = cluster
        self.clientId = clientId
    }

    public init(bootstrapServers: String, clientId: String = "sightscreen-admin") {
        self.init(cluster: KafkaCluster(bootstrapServers: bootstrapServers), clientId: clientId)
    }

    /// The librdkafka properties this configuration stands for.
    var librdkafkaProperties: [String: String] {
        var properties = cluster.librdkafkaProperties
        properties["client.id"] = clientId
        properties.merge(additional) { _, new in new }
        return properties
    }
}
