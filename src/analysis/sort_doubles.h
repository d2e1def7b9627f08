// Ascending sort of many doubles, for percentiles over every kernel or launch of a trace
// (hundreds of thousands of samples): a radix sort on the values' bit patterns instead of
// comparisons. The result is the same array std::sort gives.
#pragma once

#include <vector>

namespace stepscope {

void sort_doubles(std::vector<double>& values);

}  // namespace stepscope
