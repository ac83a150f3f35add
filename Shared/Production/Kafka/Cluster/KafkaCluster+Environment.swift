import Foundation
import Runtime

extension KafkaCluster {
    /// The one reader of the Kafka connection settings from the environment (all optional; the defaults are the local stack):
    ///
    /// | variable | meaning |
    /// |---|---|
    /// | `KAFKA_BROKERS` | comma-separated `host:port` list |
    /// | `KAFKA_SECURITY_PROTOCOL` | `plaintext` (default), `ssl`, `sasl_plaintext`, `sasl_ssl` |
    /// | `KAFKA_SSL_CA_FILE` | PEM CA bundle of the brokers (default: the system's trust store) |
    /// | `KAFKA_SSL_CERT_FILE`, `KAFKA_SSL_KEY_FILE`, `KAFKA_SSL_KEY_PASSWORD_FILE` | client certificate for mutual TLS |
    /// | `KAFKA_SSL_VERIFY_HOSTNAME` | `true` (default); `false` only for test certificates without host names |
    /// | `KAFKA_SASL_MECHANISM` | `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, `OAUTHBEARER` (required with `sasl_*`) |
    /// | `KAFKA_SASL_USERNAME`, `KAFKA_SASL_PASSWORD_FILE` | PLAIN and SCRAM credentials (the password from a file) |
    /// | `KAFKA_SASL_OAUTH_TOKEN_ENDPOINT`, `KAFKA_SASL_OAUTH_CLIENT_ID`, `KAFKA_SASL_OAUTH_CLIENT_SECRET_FILE`, `KAFKA_SASL_OAUTH_SCOPE`, `KAFKA_SASL_OAUTH_EXTENSIONS` | OAUTHBEARER through OIDC |
    /// | `KAFKA_PROPERTIES_FILE` | `key=value` lines of any other librdkafka property (`#` comments) |
    /// | `KAFKA_PROPERTIES` | the same inline, `;`-separated; applied after the file |
    ///
    /// - Throws: ``ConfigurationError`` naming the variable (a secret's value never appears in it).
    public init(_ environment: EnvironmentReader, files: (String) -> String? = KafkaCluster.readFile) throws(ConfigurationError) {
        let brokers = environment.string("KAFKA_BROKERS", default: KafkaCluster.local.bootstrapServers)
        for broker in brokers.split(separator: ",") {
            let parts = broker.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
                throw .invalid(variable: "KAFKA_BROKERS", value: brokers, expected: "a comma-separated list of host:port")
            }
        }
        let protocolName = try environment.choice("KAFKA_SECURITY_PROTOCOL", default: "plaintext",
                                                  from: KafkaSecurity.TransportProtocol.allCases.map(\.rawValue))
        let transport = KafkaSecurity.TransportProtocol(rawValue: protocolName)!
        var security = KafkaSecurity(transport: transport)
        func secret(_ variable: String) throws(ConfigurationError) -> String {
            let path = try environment.requiredString(variable)
            guard let text = files(path) else {
                throw .invalid(variable: variable, value: path, expected: "a readable file holding the secret")
            }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { throw .invalid(variable: variable, value: path, expected: "a file that is not empty") }
            return value
        }
        func existingFile(_ variable: String) throws(ConfigurationError) -> String? {
            guard let path = environment.raw(variable) else { return nil }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .invalid(variable: variable, value: path, expected: "a readable PEM file")
            }
            return path
        }
        if transport.usesTLS {
            security.tls.caFile = try existingFile("KAFKA_SSL_CA_FILE")
            security.tls.certificateFile = try existingFile("KAFKA_SSL_CERT_FILE")
            security.tls.keyFile = try existingFile("KAFKA_SSL_KEY_FILE")
            if (security.tls.certificateFile == nil) != (security.tls.keyFile == nil) {
                throw .invalid(variable: security.tls.keyFile == nil ? "KAFKA_SSL_KEY_FILE" : "KAFKA_SSL_CERT_FILE", value: "",
                               expected: "KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE together (mutual TLS) or neither")
            }
            if environment.raw("KAFKA_SSL_KEY_PASSWORD_FILE") != nil { security.tls.keyPassword = try secret("KAFKA_SSL_KEY_PASSWORD_FILE") }
            security.tls.verifyHostname = try environment.bool("KAFKA_SSL_VERIFY_HOSTNAME", default: true)
        }
        if transport.usesSASL {
            let mechanism = try environment.choice("KAFKA_SASL_MECHANISM", default: "",
                                                   from: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"])
            switch mechanism {
            case "PLAIN":
                security.sasl = .plain(username: try environment.requiredString("KAFKA_SASL_USERNAME"),
                                       password: try secret("KAFKA_SASL_PASSWORD_FILE"))
            case "SCRAM-SHA-256", "SCRAM-SHA-512":
                security.sasl = .scram(KafkaSecurity.ScramHash(rawValue: mechanism)!, username: try environment.requiredString("KAFKA_SASL_USERNAME"),
                                       password: try secret("KAFKA_SASL_PASSWORD_FILE"))
            case "OAUTHBEARER":
                let endpoint = try environment.requiredString("KAFKA_SASL_OAUTH_TOKEN_ENDPOINT")
                guard endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://") else {
                    throw .invalid(variable: "KAFKA_SASL_OAUTH_TOKEN_ENDPOINT", value: endpoint, expected: "an http(s) URL")
                }
                security.sasl = .oauthBearerOIDC(KafkaSecurity.OIDC(
                    tokenEndpoint: endpoint, clientId: try environment.requiredString("KAFKA_SASL_OAUTH_CLIENT_ID"),
                    clientSecret: try secret("KAFKA_SASL_OAUTH_CLIENT_SECRET_FILE"), scope: environment.raw("KAFKA_SASL_OAUTH_SCOPE"),
                    extensions: environment.raw("KAFKA_SASL_OAUTH_EXTENSIONS")))
            default:
                throw .missing(variable: "KAFKA_SASL_MECHANISM")
            }
        }
        var properties: [String: String] = [:]
        if let path = environment.raw("KAFKA_PROPERTIES_FILE") {
            guard let text = files(path) else {
                throw .invalid(variable: "KAFKA_PROPERTIES_FILE", value: path, expected: "a readable file of key=value lines")
            }
            properties = try Self.parseProperties(text, separator: "\n", variable: "KAFKA_PROPERTIES_FILE", shown: path)
        }
        if let inline = environment.raw("KAFKA_PROPERTIES") {
            let parsed = try Self.parseProperties(inline, separator: ";", variable: "KAFKA_PROPERTIES", shown: nil)
            properties.merge(parsed) { _, new in new }
        }
        self.init(bootstrapServers: brokers, security: security, properties: properties)
    }

    /// `key=value` entries separated by `separator`; blank entries and `#` comments are skipped.
    static func parseProperties(_ text: String, separator: Character, variable: String, shown: String?) throws(ConfigurationError)
        -> [String: String]
    {
        var result: [String: String] = [:]
        for rawEntry in text.split(separator: separator) {
            let entry = rawEntry.trimmingCharacters(in: .whitespacesAndNewlines)
            if entry.isEmpty || entry.hasPrefix("#") { continue }
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                // The entry may hold a secret: show only its key part, or the file's path.
                let key = entry.prefix { $0 != "=" }
                throw .invalid(variable: variable, value: shown ?? String(key.prefix(40)), expected: "key=value entries (librdkafka properties)")
            }
            let key = entry[..<equals].trimmingCharacters(in: .whitespaces)
            result[key] = entry[entry.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    /// Reads a whole UTF-8 file, or nil.
    public static func readFile(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
    }
}
