import Foundation
import Kafka
import Runtime
import Testing

/// Issue 30: TLS/SASL settings from the environment in one place, secrets from files, never in errors.
@Suite struct KafkaClusterSettingsTests {
    /// A reader of fake files (path → contents).
    static func files(_ contents: [String: String]) -> (String) -> String? { { contents[$0] } }

    static let caFile: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-settings-ca-\(getpid()).pem").path
        FileManager.default.createFile(atPath: path, contents: Data("-----BEGIN CERTIFICATE-----\n".utf8))
        return path
    }()

    @Test func defaultsArePlaintextToTheLocalStack() throws {
        let cluster = try KafkaCluster(EnvironmentReader([:]))
        #expect(cluster == KafkaCluster.local)
        #expect(cluster.librdkafkaProperties == ["bootstrap.servers": "127.0.0.1:19092", "security.protocol": "plaintext"])
    }

    @Test func scramOverTLSMapsToLibrdkafkaProperties() throws {
        let environment = EnvironmentReader([
            "KAFKA_BROKERS": "b-1.msk:9096,b-2.msk:9096", "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SSL_CA_FILE": Self.caFile,
            "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "sightscreen", "KAFKA_SASL_PASSWORD_FILE": "/run/secrets/kafka",
        ])
        let cluster = try KafkaCluster(environment, files: Self.files(["/run/secrets/kafka": "s3cret\n"]))
        #expect(cluster.librdkafkaProperties == [
            "bootstrap.servers": "b-1.msk:9096,b-2.msk:9096", "security.protocol": "sasl_ssl", "ssl.ca.location": Self.caFile,
            "ssl.endpoint.identification.algorithm": "https", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "sightscreen",
            "sasl.password": "s3cret",
        ])
        #expect(!cluster.summary.contains("s3cret"))
        #expect(cluster.summary.contains("sasl=SCRAM-SHA-512"))
    }

    @Test func plainAndOAuthBearerOIDC() throws {
        let plain = try KafkaCluster(EnvironmentReader([
            "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "API_KEY",
            "KAFKA_SASL_PASSWORD_FILE": "/p",
        ]), files: Self.files(["/p": "API_SECRET"]))
        #expect(plain.security.sasl == .plain(username: "API_KEY", password: "API_SECRET"))
        #expect(plain.librdkafkaProperties["ssl.ca.location"] == nil)  // the system's trust store
        let oidc = try KafkaCluster(EnvironmentReader([
            "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
            "KAFKA_SASL_OAUTH_TOKEN_ENDPOINT": "https://idp.example/oauth2/token", "KAFKA_SASL_OAUTH_CLIENT_ID": "svc",
            "KAFKA_SASL_OAUTH_CLIENT_SECRET_FILE": "/c", "KAFKA_SASL_OAUTH_SCOPE": "kafka",
            "KAFKA_SASL_OAUTH_EXTENSIONS": "logicalCluster=lkc-1,identityPoolId=pool-1",
        ]), files: Self.files(["/c": "client-secret"]))
        let properties = oidc.librdkafkaProperties
        #expect(properties["sasl.mechanism"] == "OAUTHBEARER")
        #expect(properties["sasl.oauthbearer.method"] == "oidc")
        #expect(properties["sasl.oauthbearer.client.secret"] == "client-secret")
        #expect(properties["sasl.oauthbearer.extensions"] == "logicalCluster=lkc-1,identityPoolId=pool-1")
    }

    @Test func passThroughPropertiesFromAFileAndInline() throws {
        let cluster = try KafkaCluster(EnvironmentReader([
            "KAFKA_PROPERTIES_FILE": "/k.properties", "KAFKA_PROPERTIES": "socket.keepalive.enable=true; client.rack=use1-az1",
        ]), files: Self.files(["/k.properties": "# comment\nclient.rack = use1-az2\nreconnect.backoff.max.ms=5000\n"]))
        #expect(cluster.properties == ["client.rack": "use1-az1", "reconnect.backoff.max.ms": "5000", "socket.keepalive.enable": "true"])
    }

    @Test("a bad setting names its variable, never a secret's value")
    func errorsNameTheVariable() {
        func failure(_ values: [String: String], files: [String: String] = [:]) -> ConfigurationError? {
            do {
                _ = try KafkaCluster(EnvironmentReader(values), files: Self.files(files))
                return nil
            } catch { return error }
        }
        #expect(failure(["KAFKA_SECURITY_PROTOCOL": "tls"])?.description.contains("KAFKA_SECURITY_PROTOCOL") == true)
        #expect(failure(["KAFKA_SECURITY_PROTOCOL": "sasl_ssl"]) == .missing(variable: "KAFKA_SASL_MECHANISM"))
        #expect(failure(["KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u"])
            == .missing(variable: "KAFKA_SASL_PASSWORD_FILE"))
        let unreadable = failure(["KAFKA_SECURITY_PROTOCOL": "sasl_plaintext", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
                                  "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD_FILE": "/missing"])
        #expect(unreadable?.description.contains("KAFKA_SASL_PASSWORD_FILE") == true)
        #expect(failure(["KAFKA_SECURITY_PROTOCOL": "ssl", "KAFKA_SSL_CA_FILE": "/no/such/ca.pem"])?.description.contains("KAFKA_SSL_CA_FILE") == true)
        let inline = failure(["KAFKA_PROPERTIES": "sasl.password"])
        #expect(inline?.description.contains("KAFKA_PROPERTIES") == true)
        #expect(failure(["KAFKA_BROKERS": "nohost"])?.description.contains("KAFKA_BROKERS") == true)
    }

    @Test func secretsAreRedacted() {
        let redacted = KafkaCluster.redacted(["sasl.password": "x", "ssl.key.password": "y", "sasl.oauthbearer.client.secret": "z",
                                              "sasl.username": "u", "ssl.key.pem": "k"])
        #expect(redacted == ["sasl.password": "(redacted)", "ssl.key.password": "(redacted)", "sasl.oauthbearer.client.secret": "(redacted)",
                             "sasl.username": "u", "ssl.key.pem": "(redacted)"])
    }

    @Test("a rejected secret property does not put its value in the error")
    func rejectedSecretIsNotEchoed() {
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1", clientId: "redaction")
        configuration.additional = ["vault.password": "hunter2"]  // no such property: librdkafka refuses it by name
        do {
            _ = try KafkaProducer(configuration: configuration, logger: KafkaTestSupport.logger)
            Issue.record("librdkafka accepted an unknown property")
        } catch {
            #expect(String(describing: error).contains("vault.password"))
            #expect(!String(describing: error).contains("hunter2"))
        }
    }
}
