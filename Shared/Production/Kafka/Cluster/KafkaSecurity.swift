/// How every client of the project authenticates to the brokers and encrypts its connections:
/// librdkafka's `security.protocol`, TLS (`ssl.*`) and SASL (`sasl.*`) settings.
///
/// Built from the environment in one place (``KafkaCluster/init(_:)``); secrets arrive as the contents of
/// files and are never part of a description or a log line (``KafkaCluster/redacted(_:)``).
public struct KafkaSecurity: Sendable, Equatable {
    /// librdkafka's `security.protocol`.
    public enum TransportProtocol: String, Sendable, CaseIterable {
        case plaintext, ssl
        case saslPlaintext = "sasl_plaintext"
        case saslSSL = "sasl_ssl"

        /// True when the connection is TLS-encrypted.
        public var usesTLS: Bool { self == .ssl || self == .saslSSL }
        /// True when the client authenticates with SASL.
        public var usesSASL: Bool { self == .saslPlaintext || self == .saslSSL }
    }

    /// TLS settings (for `ssl` and `sasl_ssl`).
    public struct TLS: Sendable, Equatable {
        /// PEM file of the CA(s) that signed the brokers' certificates; nil: the system's trust store.
        public var caFile: String?
        /// PEM client certificate and key, for mutual TLS (both or neither).
        public var certificateFile: String?
        public var keyFile: String?
        /// The key's passphrase (read from a file), if the key is encrypted.
        public var keyPassword: String?
        /// Check that the broker's certificate names the host connected to (`https`, librdkafka's default);
        /// false only for test clusters whose certificates do not carry their host names.
        public var verifyHostname = true

        public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, keyPassword: String? = nil,
                    verifyHostname: Bool = true) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.keyPassword = keyPassword
            self.verifyHostname = verifyHostname
        }
    }

    /// A SASL mechanism with its credentials.
    public enum SASL: Sendable, Equatable {
        /// `PLAIN` (Confluent Cloud's API keys, MSK with SASL/PLAIN off by default).
        case plain(username: String, password: String)
        /// `SCRAM-SHA-256` or `SCRAM-SHA-512` (MSK's SASL/SCRAM uses SHA-512).
        case scram(ScramHash, username: String, password: String)
        /// `OAUTHBEARER` with tokens fetched by librdkafka from an OIDC token endpoint (client credentials grant).
        case oauthBearerOIDC(OIDC)

        /// The `sasl.mechanism` name.
        public var mechanism: String {
            switch self {
            case .plain: "PLAIN"
            case .scram(let hash, _, _): hash.rawValue
            case .oauthBearerOIDC: "OAUTHBEARER"
            }
        }
    }

    /// The SCRAM hash function.
    public enum ScramHash: String, Sendable, CaseIterable {
        case sha256 = "SCRAM-SHA-256"
        case sha512 = "SCRAM-SHA-512"
    }

    /// OAUTHBEARER through OpenID Connect's client-credentials grant.
    public struct OIDC: Sendable, Equatable {
        public var tokenEndpoint: String
        public var clientId: String
        /// Read from a file.
        public var clientSecret: String
        public var scope: String?
        /// SASL extensions, `key=value` comma-separated (Confluent Cloud: `logicalCluster=lkc-…,identityPoolId=pool-…`).
        public var extensions: String?

        public init(tokenEndpoint: String, clientId: String, clientSecret: String, scope: String? = nil, extensions: String? = nil) {
            self.tokenEndpoint = tokenEndpoint
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.scope = scope
            self.extensions = extensions
        }
    }

    public var transport: TransportProtocol
    public var tls: TLS
    public var sasl: SASL?

    /// No TLS, no SASL: the local stack.
    public static let plaintext = KafkaSecurity(transport: .plaintext)

    public init(transport: TransportProtocol, tls: TLS = TLS(), sasl: SASL? = nil) {
        self.transport = transport
        self.tls = tls
        self.sasl = sasl
    }

    /// The librdkafka properties these settings stand for.
    public var librdkafkaProperties: [String: String] {
        var properties = ["security.protocol": transport.rawValue]
        if transport.usesTLS {
            if let caFile = tls.caFile { properties["ssl.ca.location"] = caFile }
            if let certificateFile = tls.certificateFile { properties["ssl.certificate.location"] = certificateFile }
            if let keyFile = tls.keyFile { properties["ssl.key.location"] = keyFile }
            if let keyPassword = tls.keyPassword { properties["ssl.key.password"] = keyPassword }
            properties["ssl.endpoint.identification.algorithm"] = tls.verifyHostname ? "https" : "none"
        }
        if transport.usesSASL, let sasl {
            properties["sasl.mechanism"] = sasl.mechanism
            switch sasl {
            case .plain(let username, let password), .scram(_, let username, let password):
                properties["sasl.username"] = username
                properties["sasl.password"] = password
            case .oauthBearerOIDC(let oidc):
                properties["sasl.oauthbearer.method"] = "oidc"
                properties["sasl.oauthbearer.token.endpoint.url"] = oidc.tokenEndpoint
                properties["sasl.oauthbearer.client.id"] = oidc.clientId
                properties["sasl.oauthbearer.client.secret"] = oidc.clientSecret
                if let scope = oidc.scope { properties["sasl.oauthbearer.scope"] = scope }
                if let extensions = oidc.extensions { properties["sasl.oauthbearer.extensions"] = extensions }
            }
        }
        return properties
    }
}
