#include "query/images.hpp"

#include <string>
#include <utility>

#include "common/error.hpp"

namespace mfusim::query {

void validate(const Images& images) {
    if (images.per_request < 0 || images.per_request > 64) {
        throw Error(Status::invalid_argument,
                    "images_per_request must be 0 to 64, got " + std::to_string(images.per_request));
    }
    if (!images.active()) return;
    for (auto [name, side] : {std::pair{"image width", images.width}, std::pair{"image height", images.height}}) {
        if (side < 1 || side > 16384) {
            throw Error(Status::invalid_argument,
                        std::string(name) + " must be 1 to 16384 pixels with images, got " + std::to_string(side));
        }
    }
}

}  // namespace mfusim::query
