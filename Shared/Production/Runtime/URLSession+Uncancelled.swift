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

/// Why `URLSession.fetch` got no body.
public enum HTTPFetchError: Error, CustomStringConvertible, Equatable {
    case status(url: String, status: Int)
    case notHTTP(url: String)

    public var description: String {
        switch self {
        case .status(let url, let status): "GET \(url) answered HTTP \(status)"
        case .notHTTP(let url): "GET \(url) got no HTTP answer"
        }
    }
}

extension URLSession {
    /// The body of `GET url` when it answers 200 (through `dataIgnoringCancellation`).
    /// - Throws: `HTTPFetchError` for another status, or the transport's error.
    public func fetch(_ url: URL, timeout: TimeInterval, accept: String? = nil) async throws -> Data {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        let (data, response) = try await dataIgnoringCancellation(for: request)
        guard let http = response as? HTTPURLResponse else { throw HTTPFetchError.notHTTP(url: url.absoluteString) }
        guard http.statusCode == 200 else { throw HTTPFetchError.status(url: url.absoluteString, status: http.statusCode) }
        return data
    }
}
