//! The special values of process words: the descriptors, ALT states and timer states that the
//! scheduler, channels and links store in workspace slots and channel words.

/// `NotProcess.p`: an empty channel, an empty queue.
pub const NOT_PROCESS: u32 = 0x8000_0000;
/// `Enabling.p`: an ALT is enabling its guards.
pub const ENABLING: u32 = 0x8000_0001;
/// `Waiting.p`: an ALT waits for a guard.
pub const WAITING: u32 = 0x8000_0002;
/// `Ready.p`: an ALT has a ready guard.
pub const READY: u32 = 0x8000_0003;
/// `TimeSet.p`: a timer ALT has a time.
pub const TIME_SET: u32 = 0x8000_0001;
/// `TimeNotSet.p`: a timer ALT has no time yet.
pub const TIME_NOT_SET: u32 = 0x8000_0002;
/// `NoneSelected.o`: no ALT branch chosen yet.
pub const NONE_SELECTED: u32 = 0xFFFF_FFFF;
