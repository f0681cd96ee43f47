#include "report_pipe.hpp"

#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace protocol {

void Reporter::send(const std::string& key, const std::string& value) {
    std::string line = key + "\t" + value;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    line += '\n';
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the parent is gone; nothing useful left to do
        done += static_cast<std::size_t>(n);
    }
}

std::string Reporter::ask(const std::string& key, const std::string& value) {
    send(key, value);
    std::string answer;
    for (char c; ;) {
        const ssize_t n = ::read(0, &c, 1);  // byte by byte: nothing past the answer's newline is taken
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("no answer to '" + key + "' on stdin (is the grader running this?)");
        if (c == '\n') return answer;
        answer += c;
    }
}

}  // namespace protocol
