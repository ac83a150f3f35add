/// A result row of `FollowBatchStatement` that does not fit the batch it answers (a bug, never user input).
public enum FollowBatchRowError: Error, Equatable, CustomStringConvertible {
    /// Column `i` named a position outside the batch.
    case unexpectedIndex(Int, batchSize: Int)

    public var description: String {
        switch self {
        case .unexpectedIndex(let index, let size): "follow batch answered for position \(index) of a batch of \(size)"
        }
    }
}
