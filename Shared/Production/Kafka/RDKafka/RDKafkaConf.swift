import CRdKafka

/// Builds an `rd_kafka_conf_t` from plain properties.
enum RDKafkaConf {
    /// The one place where configuration reaches `rd_kafka_conf_set`.
    ///
    /// Returns a new conf the caller owns (hand it to `rd_kafka_new`, or destroy it). A key or value
    /// librdkafka rejects throws ``KafkaConfigurationError`` naming the key (a secret's value
    /// redacted); the conf is freed then.
    static func make(_ properties: [String: String]) throws(KafkaConfigurationError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errorText = [CChar](repeating: 0, count: 512)
        for key in properties.keys.sorted() {
            let value = properties[key]!
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                let message = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                throw KafkaConfigurationError(key: key, value: KafkaCluster.isSecret(key) ? "(redacted)" : value, message: message)
            }
        }
        return conf
    }
}
