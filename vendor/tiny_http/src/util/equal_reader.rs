use std::io::Read;
use std::io::Result as IoResult;
use std::sync::mpsc::channel;
use std::sync::mpsc::{Receiver, Sender};

/// A `Reader` that reads exactly the number of bytes from a sub-reader.
///
/// If the limit is reached, it returns EOF. If the limit is not reached
/// when the destructor is called, the remaining bytes will be read and
/// thrown away.
pub struct EqualReader<R>
where
    R: Read,
{
    reader: R,
    size: usize,
    last_read_signal: Sender<IoResult<()>>,
}

impl<R> EqualReader<R>
where
    R: Read,
{
    pub fn new(reader: R, size: usize) -> (EqualReader<R>, Receiver<IoResult<()>>) {
        let (tx, rx) = channel();

        let r = EqualReader {
            reader,
            size,
            last_read_signal: tx,
        };

        (r, rx)
    }
}

impl<R> Read for EqualReader<R>
where
    R: Read,
{
    fn read(&mut self, buf: &mut [u8]) -> IoResult<usize> {
        if self.size == 0 {
            return Ok(0);
        }

        let buf = if buf.len() < self.size {
            buf
        } else {
            &mut buf[..self.size]
        };

        match self.reader.read(buf) {
            Ok(len) => {
                self.size -= len;
                Ok(len)
            }
            err @ Err(_) => err,
        }
    }
}

/// tabula: the most of an unread body the destructor reads (and throws away) so that the
/// connection can carry another request, and the longest it tries. Past either the rest is
/// left unread: the connection cannot be used again and is closed by its next parse.
const DRAIN_BYTES: usize = 1 << 20;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(2);

impl<R> Drop for EqualReader<R>
where
    R: Read,
{
    fn drop(&mut self) {
        // tabula: a fixed buffer, not one of the remaining size (a `Content-Length` of
        // 10^12 was an allocation of 10^12 bytes, and the process aborted), and a bound on
        // what is drained (a client dripping a body must not hold the thread for ever).
        let mut buf = [0u8; 16 * 1024];
        let until = std::time::Instant::now() + DRAIN_TIME;
        let mut drained = 0;
        while self.size > 0 {
            if drained >= DRAIN_BYTES || std::time::Instant::now() > until {
                self.last_read_signal
                    .send(Err(std::io::Error::new(
                        std::io::ErrorKind::Other,
                        "unread body too large or too slow to drain",
                    )))
                    .ok();
                return;
            }
            let want = self.size.min(buf.len());
            match self.reader.read(&mut buf[..want]) {
                Err(e) => {
                    self.last_read_signal.send(Err(e)).ok();
                    return;
                }
                Ok(0) => break,
                Ok(n) => {
                    self.size -= n;
                    drained += n;
                }
            }
        }
        self.last_read_signal.send(Ok(())).ok();
    }
}

#[cfg(test)]
mod tests {
    use super::EqualReader;
    use std::io::Read;

    #[test]
    fn test_limit() {
        use std::io::Cursor;

        let mut org_reader = Cursor::new("hello world".to_string().into_bytes());

        {
            let (mut equal_reader, _) = EqualReader::new(org_reader.by_ref(), 5);

            let mut string = String::new();
            equal_reader.read_to_string(&mut string).unwrap();
            assert_eq!(string, "hello");
        }

        let mut string = String::new();
        org_reader.read_to_string(&mut string).unwrap();
        assert_eq!(string, " world");
    }

    #[test]
    fn test_not_enough() {
        use std::io::Cursor;

        let mut org_reader = Cursor::new("hello world".to_string().into_bytes());

        {
            let (mut equal_reader, _) = EqualReader::new(org_reader.by_ref(), 5);

            let mut vec = [0];
            equal_reader.read_exact(&mut vec).unwrap();
            assert_eq!(vec[0], b'h');
        }

        let mut string = String::new();
        org_reader.read_to_string(&mut string).unwrap();
        assert_eq!(string, " world");
    }
}
