// Kafka module.
