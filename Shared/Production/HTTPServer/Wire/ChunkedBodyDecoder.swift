import Runtime

/// Decodes a `Transfer-Encoding: chunked` body as it arrives (RFC 9112 §7.1), strictly: hex sizes with
/// checked arithmetic, CRLF after every size line and every chunk's data, extensions and trailers bounded
/// and skipped. The body grows only up to `maxBodyBytes`; past it the decoder refuses at once.
struct ChunkedBodyDecoder {
    /// What a `feed` call ended with.
    enum Progress: Equatable {
        /// All bytes given were used; more are needed.
        case needMore
        /// The body ended after `consumed` bytes of the input given.
        case finished(consumed: Int)
        /// The framing is broken or the body too large.
        case rejected(HTTPRejection)
    }

    private enum State {
        case size(digits: Int, value: Int)
        case extensions
        case sizeLineFeed(size: Int)
        case data(remaining: Int)
        case dataCarriageReturn
        case dataLineFeed
        case trailerLineStart
        case trailerLine
        case trailerLineFeed(empty: Bool)
    }

    /// Longest chunk-size line (size and extensions) and the most trailer bytes read.
    static let maxLineBytes = 4096
    static let maxTrailerBytes = 8192

    let maxBodyBytes: Int
    /// The body decoded so far.
    private(set) var body: [UInt8] = []
    private var state = State.size(digits: 0, value: 0)
    private var lineBytes = 0
    private var trailerBytes = 0

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Takes the decoded body (after `.finished`).
    mutating func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }

    /// Decodes as much of `input` as belongs to the body.
    mutating func feed(_ input: UnsafeBufferPointer<UInt8>) -> Progress {
        var index = 0
        while index < input.count {
            let byte = input[index]
            switch state {
            case .size(let digits, let value):
                if let nibble = byte.hexValue.map(Int.init) {
                    let (shifted, overflow) = value.multipliedReportingOverflow(by: 16)
                    guard !overflow, digits < 16 else { return tooLarge() }
                    let next = shifted + nibble
                    guard next <= maxBodyBytes - body.count else { return tooLarge() }
                    state = .size(digits: digits + 1, value: next)
                } else if digits > 0, byte == UInt8(ascii: ";") || byte == .space || byte == .tab {
                    state = .extensions
                    lineBytes = 0
                    chunkSize = value
                } else if digits > 0, byte == .cr {
                    state = .sizeLineFeed(size: value)
                } else {
                    return malformed("chunk size is not hexadecimal: \(HTTPRejection.quote([byte]))")
                }
            case .extensions:
                lineBytes += 1
                if byte == .cr {
                    state = .sizeLineFeed(size: chunkSize)
                } else if !byte.isFieldValueCharacter || lineBytes > Self.maxLineBytes {
                    return malformed("chunk extension too long or with a control byte")
                }
            case .sizeLineFeed(let size):
                guard byte == .lf else { return malformed("chunk size line not ended by CRLF") }
                state = size == 0 ? .trailerLineStart : .data(remaining: size)
            case .data(let remaining):
                let take = min(remaining, input.count - index)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                state = take == remaining ? .dataCarriageReturn : .data(remaining: remaining - take)
                continue
            case .dataCarriageReturn:
                guard byte == .cr else { return malformed("chunk data not followed by CRLF") }
                state = .dataLineFeed
            case .dataLineFeed:
                guard byte == .lf else { return malformed("chunk data not followed by CRLF") }
                state = .size(digits: 0, value: 0)
            case .trailerLineStart:
                if byte == .cr {
                    state = .trailerLineFeed(empty: true)
                } else {
                    state = .trailerLine
                    if let rejection = countTrailer(byte) { return .rejected(rejection) }
                }
            case .trailerLine:
                if byte == .cr {
                    state = .trailerLineFeed(empty: false)
                } else if let rejection = countTrailer(byte) {
                    return .rejected(rejection)
                }
            case .trailerLineFeed(let empty):
                guard byte == .lf else { return malformed("trailer line not ended by CRLF") }
                if empty { return .finished(consumed: index + 1) }
                state = .trailerLineStart
            }
            index += 1
        }
        return .needMore
    }

    /// The size of the chunk whose extensions are being skipped.
    private var chunkSize = 0

    private mutating func countTrailer(_ byte: UInt8) -> HTTPRejection? {
        trailerBytes += 1
        guard trailerBytes <= Self.maxTrailerBytes, byte.isFieldValueCharacter else {
            return HTTPRejection(.malformedChunkedBody, "trailer section too long or with a control byte")
        }
        return nil
    }

    private func tooLarge() -> Progress {
        .rejected(HTTPRejection(.payloadTooLarge, "request body larger than \(maxBodyBytes) bytes"))
    }

    private func malformed(_ why: String) -> Progress {
        .rejected(HTTPRejection(.malformedChunkedBody, why))
    }

}
