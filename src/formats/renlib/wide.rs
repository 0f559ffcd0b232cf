//! A lookup table of the children of a node that has many: merging a million games reads the
//! children of the nodes near the root millions of times, and in a large tree every sibling link
//! followed is a cache miss. Tables are built during merges only, for nodes found with at least
//! [`WIDE`] children, and kept exact by every insertion under an indexed node.

use crate::formats::renlib::{Cell, NodeId};

/// Children from which a node gets a table.
pub(crate) const WIDE: usize = 16;

/// Point bytes go up to 0xEF (row 14, column 15).
const CELLS: usize = 0xF0;

/// The children of one node by point byte.
#[derive(Debug, Clone)]
pub(crate) struct Wide {
    /// The first child (in file order) with each point, 0 = none.
    child: [u32; CELLS],
    /// Whether the children are in strictly increasing point order (always so in a tree built by
    /// merges; a library read from a file may have any order).
    sorted: bool,
}

impl Wide {
    /// The table of `children`, given in file order with their points.
    pub(crate) fn build(children: impl Iterator<Item = (NodeId, Cell)>) -> Wide {
        let mut w = Wide {
            child: [0; CELLS],
            sorted: true,
        };
        let mut last: Option<Cell> = None;
        for (id, cell) in children {
            w.sorted &= last.is_none_or(|l| l < cell);
            last = Some(cell);
            w.add(cell, id);
        }
        w
    }

    pub(crate) fn get(&self, cell: Cell) -> Option<NodeId> {
        match self.child[usize::from(cell.byte())] {
            0 => None,
            n => Some(NodeId(n)),
        }
    }

    /// Record a new child (a point already present keeps its first child).
    pub(crate) fn add(&mut self, cell: Cell, id: NodeId) {
        let slot = &mut self.child[usize::from(cell.byte())];
        if *slot == 0 {
            *slot = id.0;
        }
    }

    /// For sorted children: the child with the largest point below `cell`, the one a new child
    /// with `cell` goes after (`None`: it goes first). `None` from the outer option when the
    /// children are not sorted and the table cannot tell.
    pub(crate) fn predecessor(&self, cell: Cell) -> Option<Option<NodeId>> {
        if !self.sorted {
            return None;
        }
        let below = &self.child[..usize::from(cell.byte())];
        Some(below.iter().rev().find(|&&n| n != 0).map(|&n| NodeId(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(b: u8) -> Cell {
        Cell::from_byte(b).unwrap()
    }

    #[test]
    fn finds_children_and_predecessors() {
        let w = Wide::build([(NodeId(5), cell(0x12)), (NodeId(6), cell(0x78))].into_iter());
        assert_eq!(w.get(cell(0x78)), Some(NodeId(6)));
        assert_eq!(w.get(cell(0x79)), None);
        assert_eq!(w.predecessor(cell(0x79)), Some(Some(NodeId(6))));
        assert_eq!(w.predecessor(cell(0x51)), Some(Some(NodeId(5))));
        assert_eq!(w.predecessor(cell(0x01)), Some(None));
        let unsorted = Wide::build([(NodeId(6), cell(0x78)), (NodeId(5), cell(0x12))].into_iter());
        assert_eq!(unsorted.predecessor(cell(0x79)), None);
        let dup = Wide::build([(NodeId(6), cell(0x78)), (NodeId(7), cell(0x78))].into_iter());
        assert_eq!(dup.get(cell(0x78)), Some(NodeId(6)));
        assert_eq!(dup.predecessor(cell(0x79)), None);
    }
}
