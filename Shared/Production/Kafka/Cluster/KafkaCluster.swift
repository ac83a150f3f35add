/// Where the brokers are and how to talk to them: the connection settings every Kafka client of the
/// project shares (consumers, producers, admin clients, the CLI).
///
/// `properties` is the documented pass-through for any other librdkafka property (`KAFKA_PROPERTIES` /
/// `KAFKA_PROPERTIES_FILE`): applied after the security settings, before a client's own settings.
public struct KafkaCluster: Sendable, Equatable {
    /// Comma-separated `host:port` list.
    public var bootstrapServers: String
    public var security: KafkaSecurity
    /// Extra librdkafka properties for every client.
    public var properties: [String: String]

    public init(bootstrapServers: String, security: KafkaSecurity = .plaintext, properties: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.security = security
        self.properties = properties
    }

    /// The local stack's broker (`scripts/stack`), plaintext.
    public static let local = KafkaCluster(bootstrapServers: "127.0.0.1:19092")

    /// The connection properties: brokers, security, then the pass-through.
    public var librdkafkaProperties: [String: String] {
        var result = security.librdkafkaProperties
        result["bootstrap.servers"] = bootstrapServers
        result.merge(properties) { _, new in new }
        return result
    }

    /// `properties` with every secret value replaced, for logs and error messages.
    public static func redacted(_ properties: [String: String]) -> [String: String] {
        properties.reduce(into: [:]) { result, entry in result[entry.key] = isSecret(entry.key) ? "(redacted)" : entry.value }
    }

    /// True for a librdkafka property whose value is a secret (passwords, client secrets, JAAS, inline keys).
    public static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["password", "secret", "jaas", ".pem", "oauthbearer.config", "sasl.kerberos.keytab"].contains { lowered.contains($0) }
    }

    /// A one-line summary for start-up logs (no secrets): brokers, protocol, mechanism, pass-through keys.
    public var summary: String {
        var parts = ["brokers=\(bootstrapServers)", "security=\(security.transport.rawValue)"]
        if let sasl = security.sasl, security.transport.usesSASL { parts.append("sasl=\(sasl.mechanism)") }
        if security.transport.usesTLS { parts.append("ca=\(security.tls.caFile ?? "system")") }
        if !properties.isEmpty { parts.append("properties=\(properties.keys.sorted().joined(separator: ","))") }
        return parts.joined(separator: " ")
    }
}
