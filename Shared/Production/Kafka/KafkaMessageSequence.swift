/// The messages of a ``KafkaConsumer``, polled one at a time.
///
/// Ends when the consumer is closed or the iterating task is cancelled; a fatal error is thrown.
public struct KafkaMessageSequence: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage

    let consumer: KafkaConsumer
    let pollTimeout: Duration

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer, pollTimeout: pollTimeout)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer
        let pollTimeout: Duration

        public mutating func next() async throws -> KafkaMessage? {
            while !Task.isCancelled && !consumer.isClosed {
                do {
                    if let message = try await consumer.poll(timeout: pollTimeout) { return message }
                } catch let error as KafkaError where error.code == KafkaError.stateCode && consumer.isClosed {
                    return nil
                }
            }
            return nil
        }
    }
}
