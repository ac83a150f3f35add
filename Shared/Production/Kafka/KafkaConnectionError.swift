/// Why a client could not talk to the cluster, with the setting to change named (``KafkaAdmin/verifyConnection(timeout:)``).
public enum KafkaConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SASL refused the credentials (or the mechanism).
    case authentication(brokers: String, detail: String)
    /// The TLS handshake failed (an unknown CA, a host name the certificate does not name, TLS spoken to a plaintext port).
    case tls(brokers: String, detail: String)
    /// No broker answered in time.
    case unreachable(brokers: String, detail: String)

    /// True for a configuration problem that waiting will not fix (bad credentials or TLS settings).
    public var isMisconfiguration: Bool {
        if case .unreachable = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .authentication(let brokers, let detail):
            "kafka: SASL authentication with \(brokers) failed (\(detail)): check KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and "
                + "KAFKA_SASL_PASSWORD_FILE (or the KAFKA_SASL_OAUTH_* settings)"
        case .tls(let brokers, let detail):
            "kafka: TLS with \(brokers) failed (\(detail)): check KAFKA_SSL_CA_FILE (the CA that signed the brokers' certificates), "
                + "KAFKA_SSL_VERIFY_HOSTNAME, and KAFKA_SECURITY_PROTOCOL against the listener (ssl/sasl_ssl vs plaintext)"
        case .unreachable(let brokers, let detail):
            "kafka: no broker of \(brokers) answered (\(detail)): check KAFKA_BROKERS, the network, and KAFKA_SECURITY_PROTOCOL "
                + "(a plaintext client on a TLS listener gets no answer)"
        }
    }
}
