import Kafka

/// Copies each consumer's per-partition lag (from librdkafka statistics) into the `la_consumer_lag` gauge.
struct LagReporter: Sendable {
    let consumers: [KafkaConsumer]
    let metrics: CoordinatorMetrics
    let interval: Duration

    /// Runs until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            for consumer in consumers {
                for lag in consumer.partitionLag { metrics.lag(topic: lag.topic, partition: lag.partition, lag.lag) }
            }
            try? await Task.sleep(for: interval)
        }
    }
}
