import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)` run in a task of its own that the caller's cancellation does not reach, awaited to its
    /// end (bounded by the request's timeout). On Linux, cancelling a URLSession task races its completion
    /// inside swift-corelibs-foundation and can kill the process ("Trying to access a behaviour for a task
    /// that in not in the registry", TaskRegistry.swift): a poll loop cancelled at shutdown or at the loss
    /// of leadership must not do that. Every URLSession request of the project goes through here.
    public func dataIgnoringCancellation(for request: URLRequest) async throws -> (Data, URLResponse) {
        let task = Task { try await self.data(for: request) }
        return try await task.value
    }
}
