import FlowDescriptor

/// The columns of one line, computed once: where each column (1-based, counting Unicode scalars, as libyaml's
/// marks do) starts in the line's UTF-8 bytes.
///
/// Columns are never counted by walking `Character`s: a line is a slice of the file that need not start on a
/// character boundary, and each step over a run of regional indicators (flag emoji, which pair up from the run's
/// start) then rescans the run, so a line of 64,000 flags took seconds per walk. The index is one pass over the
/// bytes; each finding or comment on the line then looks its column up.
struct LineColumns {
    /// The byte offset where each column starts; one more entry for the line's end.
    private let starts: [Int]

    /// The index of `line` (without its line end).
    init(_ line: Substring) {
        var starts: [Int] = []
        starts.reserveCapacity(line.utf8.count + 1)
        var offset = 0
        for byte in line.utf8 {
            // A byte that is not a continuation byte (10xxxxxx) starts a scalar.
            if byte & 0xC0 != 0x80 { starts.append(offset) }
            offset += 1
        }
        starts.append(offset)
        self.starts = starts
    }

    /// How many columns the line has.
    var count: Int { starts.count - 1 }

    /// The 1-based column of the scalar that holds byte `offset` (the line's end is column `count + 1`).
    func column(ofByte offset: Int) -> Int {
        // The last start at or before `offset`, by binary search.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    /// The byte offset where 1-based `column` starts, clamped to the line (column `count + 1` is its end).
    func byteOffset(ofColumn column: Int) -> Int {
        starts[max(0, min(column - 1, starts.count - 1))]
    }

    /// The text of columns `range` (1-based, clamped to the line), as scalars; no `Character` is formed.
    func text(of line: Substring, columns range: Range<Int>) -> Substring {
        let bytes = line.utf8
        let start = bytes.index(bytes.startIndex, offsetBy: byteOffset(ofColumn: range.lowerBound))
        let end = bytes.index(bytes.startIndex, offsetBy: byteOffset(ofColumn: max(range.lowerBound, range.upperBound)))
        return Substring(bytes[start..<end])
    }

    /// The index of each line of `lines` that one of `locations` points into, by 0-based line number: built once
    /// a line, however many findings it has.
    static func of(_ lines: [Substring], at locations: [SourceLocation]) -> [Int: LineColumns] {
        var columns: [Int: LineColumns] = [:]
        for location in locations where lines.indices.contains(location.line - 1) && columns[location.line - 1] == nil {
            columns[location.line - 1] = LineColumns(lines[location.line - 1])
        }
        return columns
    }
}
